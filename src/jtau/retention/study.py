"""The whole retention analysis of a corpus, as `jtau retention analyze`, `jtau experiment report`
and calibration run it: the cells (analysis.py), the summary over them (summary.py) and, with
details, the arms' decomposition (decompose.py), with the maps' canonical arguments."""

from __future__ import annotations

from collections.abc import Callable

from jtau.errors import InputError
from jtau.retention.cell import Study


def study(traces, source: str = "en", target: str | None = None, pairs: list[tuple[str, str]] | None = None,
          permutations: int = 1000, bootstrap: int = 1000, baseline: str = "pooled", details: bool = True,
          where: str = "the given files", progress: Callable[[int, int], None] | None = None) -> Study:
    """The analysis of `traces` (TraceFiles, a list of traces or any iterable of them; read from
    `where`) with J-tau's entity maps; `progress(done, total)` as cells are analysed.  InputError
    names the traces' problem, or a corpus without a language pair with traces on both sides."""
    from jtau.maps import project_maps
    from jtau.retention.canonical import Canonicalizer
    from jtau.retention.corpus import analyze

    result = analyze(traces, Canonicalizer(project_maps()), source, target, permutations, bootstrap, progress,
                     baseline, pairs, details, where)
    if not result.cells:
        wanted = f"pairs {pairs}" if pairs else f"source {source!r}" + (f", target {target!r}" if target else "")
        raise InputError(f"{where}: no language pair with traces on both sides ({wanted})")
    return result
