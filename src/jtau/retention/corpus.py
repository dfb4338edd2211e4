"""`analyze`: the analysis of a whole corpus, its cells and summary counts (analysis.py analyses
one cell); the corpus grouped in this process, or split by groups across forked processes, each
reading the whole corpus.

Every process reads every rollout, but checks, groups and analyses only those of its own groups:
the groups in the order they first appear, dealt out in turn.  Reading a line without checking it
costs its parse and its group's key; a line whose key cannot be read is checked by every process.
Each process returns its groups' cells, their share of the summary's counts and decomposition; the
cells come out in the order of one process (groups sorted, then pairs), and a failure is the one of
the rollout read first, as if one process had read them all.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack

from jtau.errors import InputError
from jtau.retention import analysis
from jtau.retention.analysis import (
    BASELINES,
    ONE_TRIAL,
    analyze_cells,
    cell_name,
    default_workers,
    group,
    language_pairs,
    one_trial,
    side_pairs,
)
from jtau.retention.arrays import GroupArrays
from jtau.retention.canonical import Canonicalizer
from jtau.retention.cell import Cell, Study
from jtau.retention.decompose import decompose
from jtau.retention.summary import language_counts, summarize
from jtau.retention.traces import Trace, TraceFiles
from jtau.util.gcpause import gc_paused
from jtau.util.listing import first

_WORK: dict = {}  # what the forked processes analyse: the source, the settings, the shared counters


class Owner:
    """Which groups are one process' (`part` of `parts`), and every language read."""

    def __init__(self, part: int, parts: int):
        self.part, self.parts = part, parts
        self.order: dict[tuple, int] = {}
        self.benchmarks: dict[tuple, str] = {}
        self.languages: set[str] = set()

    def owns(self, model, benchmark, language, temperature, runtime, retrieval) -> bool:
        base = self.benchmarks.get((benchmark, language))
        if base is None:
            base = self.benchmarks[benchmark, language] = analysis.base_benchmark(benchmark, language)
        self.languages.add(language)
        key = (model, base, temperature, runtime or "", retrieval or "")
        return self.order.setdefault(key, len(self.order)) % self.parts == self.part

    def keep(self, data) -> bool:
        """Whether a line's object is this process' to check (and any it cannot place is)."""
        try:
            get = data.get
            return self.owns(str(data["model"]), str(data["benchmark"]), str(data["language"]),
                             float(data["temperature"]), get("runtime"), get("retrieval"))
        except Exception:  # no trace (check says why, in every process)
            return True

    def traces(self, source, at: list) -> Iterator[Trace]:
        """This process' traces of `source` (TraceFiles or a list of traces); `at` follows the one read."""
        if isinstance(source, TraceFiles):
            yield from source.read(self.keep, at)
            return
        for index, trace in enumerate(source):
            at[1] = index
            if self.owns(trace.model, trace.benchmark, trace.language, trace.temperature, trace.runtime,
                         trace.retrieval):
                yield trace


def analyze_part(part: int, parts: int, source, canonical, options: dict, count: Callable[[int, int], None]
                 ) -> tuple:
    """One process' share: ("error", where, error) for the first failure it meets (where: the
    rollout read, or after reading the group whose cell failed), else ("cells", [(key, cells)],
    per-language counts, [(key, decomposition)])."""
    owner, at = Owner(part, parts), [0, 0]
    try:
        groups = analysis.group(owner.traces(source, at), canonical, options["details"])
    except InputError as exc:
        return "error", (0, *at), exc
    wanted = analysis.pairs_of(sorted(owner.languages), options["source"], options["targets"], options["pairs"])
    keys = sorted(groups)
    sides = {key: [pair for s, t in wanted for pair in analysis.side_pairs(groups[key], s, t)] for key in keys}
    count(part, sum(map(len, sides.values())))
    cells = []
    for key in keys:
        g, arrays = groups[key], GroupArrays(groups[key].tasks)
        try:
            done = [analysis.analyze_pair(g, a, b, options["permutations"], options["bootstrap"], 0,
                                          options["baseline"], options["details"], arrays=arrays)
                    for a, b in sides[key]]
        except InputError as exc:
            return "error", (1, key), exc
        for (a, b), cell in zip(sides[key], done):
            g.tools.setdefault(a, Counter())  # a side of a cell is in the summary's languages (summary.py)
            g.tools.setdefault(b, Counter())
            if not cell["comparable"] and analysis.one_trial(g, a, b):
                cell["retention_unmeasured"] = analysis.ONE_TRIAL
        cells.append((key, done))
        count(part, -len(done))
    decomposition = []
    if options["details"]:
        decomposition = [(key, decompose({key: groups[key]}, options["bootstrap"])) for key in keys]
    return "cells", cells, language_counts(groups.values()), decomposition


def _run(part: int) -> tuple:
    return analyze_part(part, _WORK["parts"], _WORK["source"], _WORK["canonical"], _WORK["options"], _shared_count)


def _shared_count(part: int, cells: int) -> None:
    """A process' progress in shared memory: its cells to analyse (positive, once), each one done (-n)."""
    counters = _WORK["counters"]
    with counters.get_lock():
        if cells >= 0:
            counters[part] = cells
        else:
            counters[len(counters) // 2 + part] -= cells


def analyze_parts(source, canonical, options: dict, workers: int, progress=None) -> list[tuple]:
    """Every process' share (analyze_part), in process order: in this process alone, or in `workers`
    forked processes (the numbers do not depend on how many); `progress(done, total)` once the cells
    are counted."""
    forks = workers > 1 and "fork" in multiprocessing.get_all_start_methods()
    with ExitStack() as stack:
        stack.enter_context(analysis.one_blas_thread())
        if not forks:
            total = [0, 0]

            def count(_part: int, cells: int) -> None:
                total[cells < 0] += abs(cells)
                if progress and cells < 0:
                    progress(total[1], total[0])
            return [analyze_part(0, 1, source, canonical, options, count)]
        context = multiprocessing.get_context("fork")
        counters = context.Array("q", [-1] * workers + [0] * workers)
        _WORK.update(source=source, canonical=canonical, options=options, parts=workers, counters=counters)
        stack.callback(_WORK.clear)
        # Ctrl-C is the parent's to handle: it ends the pool; a worker stops without a traceback
        pool = stack.enter_context(context.Pool(workers, initializer=signal.signal,
                                                initargs=(signal.SIGINT, signal.SIG_IGN)))
        shares = pool.map_async(_run, range(workers))
        shown = -1
        while not shares.ready():
            shares.wait(0.2)
            totals, done = counters[:workers], sum(counters[workers:])
            if progress and min(totals) >= 0 and done != shown:
                shown = done
                progress(done, sum(totals))
        return shares.get()


def merged(shares: list[tuple]) -> tuple[list[Cell], dict, list[dict]]:
    """The processes' shares as one: (cells, per-language counts, decomposition) in group order;
    the failure of the rollout read first raised."""
    failures = [share[1:] for share in shares if share[0] == "error"]
    if failures:
        raise min(failures, key=lambda failure: failure[0])[1]
    counts: dict[str, Counter] = {}
    for share in shares:
        for language, counter in share[2].items():
            counts.setdefault(language, Counter()).update(counter)
    cells = sorted((item for share in shares for item in share[1]), key=lambda item: item[0])
    decomposition = sorted((item for share in shares for item in share[3]), key=lambda item: item[0])
    return [c for _, part in cells for c in part], counts, [d for _, part in decomposition for d in part]

def analyze(traces, canonical: Canonicalizer, source: str = "en", target: str | None = None,
            permutations: int = 1000, bootstrap: int = 1000, progress=None, baseline: str = "pooled",
            pairs: list[tuple[str, str]] | None = None, details: bool = False, where: str = "the traces",
            workers: int | None = None) -> Study:
    """The cells (one per model x benchmark x temperature x runtime x retrieval configuration x
    pair of sides), the summary (summary.py) and, with `details`, the arms' decomposition
    (decompose.py); the corpus is read once.  `target` None analyses the source against every
    other language present.  A requested pair without a single comparable pair of rollouts is an
    error (InputError naming `where` the traces are and the cells), never a row of dashes, unless
    each task ran once on both sides (a one-trial protocol: the cell says `retention_unmeasured`).
    `traces` that can be read again (TraceFiles, a list) are read by `workers` processes
    (default_workers), each grouping and analysing its share of the groups (analyze_parts); other
    traces are grouped here and their cells analysed in the processes.  The numbers do not depend
    on how many."""
    if baseline not in BASELINES:
        raise ValueError(f"baseline {baseline!r}: one of {', '.join(BASELINES)}")
    with gc_paused():  # millions of rollouts and no reference cycles: collections would walk them all again and again
        if isinstance(traces, (TraceFiles, list, tuple)):
            options = {"source": source, "targets": [target] if target else None, "pairs": pairs,
                       "permutations": permutations, "bootstrap": bootstrap, "baseline": baseline, "details": details}
            results, counts, decomposed = merged(analyze_parts(traces, canonical, options,
                                                               workers or default_workers(), progress))
        else:
            results, counts, decomposed = _analyze_here(traces, canonical, source, target, permutations, bootstrap,
                                                        progress, baseline, pairs, details, workers)
    # a cell without a pair is explained by its failures (shown, unranked), by routes that were
    # all empty (a task set where the agent calls nothing: shown, n = 0) or by a one-trial protocol
    # (each task ran once on both sides: reward and diagnostics stand, retention is not measured),
    # or it is an error
    empty = [cell_name(cell) for cell in results if not cell["comparable"] and cell["ranked"]
             and not cell.get("retention_unmeasured")
             and not any(n["empty_pairs_excluded"] for n in cell["levels"].values())]
    if empty:
        raise InputError(f"{where}: {len(empty)} cell{'s have' if len(empty) > 1 else ' has'} no pair of rollouts to "
                         "compare (each side needs a task with two completed trials, and the two sides trials of "
                         "different seeds)", first(empty))
    return Study(results, summarize(results, counts=counts), decomposed if details else [])


def _analyze_here(traces, canonical: Canonicalizer, source: str, target: str | None, permutations: int,
                  bootstrap: int, progress, baseline: str, pairs, details: bool, workers: int | None
                  ) -> tuple[list[Cell], dict, list[dict]]:
    """analyze's cells, per-language counts and decomposition of traces grouped in this process."""
    groups = group(traces, canonical, details)
    wanted = language_pairs(groups, source, [target] if target else None, pairs)
    jobs = [(key, a, b) for key in sorted(groups) for s, t in wanted for a, b in side_pairs(groups[key], s, t)]
    results = analyze_cells(groups, jobs, (permutations, bootstrap, 0, baseline, details),
                             workers or default_workers(), progress)
    for key, a, b in jobs:  # a side of a cell is in the summary's languages, tool calls or none (summary.py)
        for side in (a, b):
            groups[key].tools.setdefault(side, Counter())
    for (key, a, b), cell in zip(jobs, results):
        if not cell["comparable"] and one_trial(groups[key], a, b):
            cell["retention_unmeasured"] = ONE_TRIAL
    decomposed = []
    if details:
        decomposed = decompose(groups, bootstrap)
    return results, language_counts(groups.values()), decomposed
