"""The whole retention analysis of a corpus, as `jtau retention analyze`, `jtau experiment report`
and calibration run it: the cells (analysis.py), the summary over them (summary.py) and, with
details, the arms' decomposition (decompose.py), with the maps' canonical arguments."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from jtau.retention.cell import Cell


@dataclass
class Study:
    """What an analysis found: one result per cell, the paper-shaped summary, the decomposition of
    the arms (empty without details)."""
    cells: list[Cell]                # one a cell (retention/cell.py)
    summary: dict = field(default_factory=dict)
    decomposition: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """{cells, summary, decomposition}: what the JSON report holds."""
        return {"cells": self.cells, "summary": self.summary, "decomposition": self.decomposition}


def study(traces, source: str = "en", target: str | None = None, pairs: list[tuple[str, str]] | None = None,
          permutations: int = 1000, bootstrap: int = 1000, baseline: str = "pooled", details: bool = True,
          where: str = "the given files", progress: Callable[[int, int], None] | None = None) -> Study:
    """The analysis of `traces` (TraceFiles, a list of traces or any iterable of them; read from
    `where`) with J-tau's entity maps; `progress(done, total)` as cells are analysed.  InputError
    names the traces' problem, or a corpus without a language pair with traces on both sides."""
    from jtau.errors import InputError
    from jtau.maps import project_maps
    from jtau.retention.canonical import Canonicalizer
    from jtau.retention.corpus import analyze

    canonical = Canonicalizer(project_maps())
    summary: dict = {}
    decomposition: list[dict] = []
    cells = analyze(traces, canonical, source, target, permutations, bootstrap, progress, baseline, pairs, summary,
                    details=details, where=where, decomposition=decomposition)
    if not cells:
        wanted = f"pairs {pairs}" if pairs else f"source {source!r}" + (f", target {target!r}" if target else "")
        raise InputError(f"{where}: no language pair with traces on both sides ({wanted})")
    return Study(cells, summary, decomposition)
