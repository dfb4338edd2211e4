"""The retention analysis of one cell (model x benchmark x temperature x runtime x retrieval
configuration x pair of sides), at two levels (steps; steps with canonical arguments).

A side is a language, or a J-tau arm (jtau.arms), with the user simulator that spoke it: the
same language from two user simulators is two sides, never merged.  Rollouts are told apart by
their identity (run, seed, trial), and a second rollout with an identity already read is refused.

Definitions (the method's, with the choices jtau adds marked *):
- agreement(a, b) = 1 - Levenshtein(a, b) / max(|a|, |b|) over action tokens; a pair of two
  empty traces is excluded and counted, never scored 1.0; failed rollouts (unparsed transcripts,
  simulations that did not run to their end) take part in no pair and count toward their side's
  failure rate.
- Iwithin: agreement of two replicates of a task in one language, averaged per task, then over
  tasks; reported for the source, the target and pooled (both languages*); `baseline` chooses
  which one retention divides by (default pooled*).  Icross: agreement of a source replicate
  with a target replicate of another seed (cross-seed), averaged likewise.  Only tasks with
  both within and cross pairs count*.  Naive retention = Icross / Iwithin.
- Matched*: every pair is put in the bucket of its source-language trace's length (a within
  pair of the target language: of its first trace); the within mean of each bucket is weighted
  by the bucket's share of cross pairs, so both sides have the same length mix.  Matched
  retention = Icross_m / Iwithin_m (the paper's headline: 0.606 / 0.837).  Cross pairs whose
  bucket has no within pair are dropped; their share is reported (`matching_dropped`).
- Gaps, side by side so nobody mistakes one for another:
    raw        Iwithin - Icross
    matched    Iwithin_m - Icross_m
    corrected  matched - (c_within - c_cross), where c_within is the agreement of random pairs
               of different tasks in one language and c_cross of different tasks across the
               two languages*.  Why: two unrelated tasks already agree less across languages
               than within one (style, length habits); that baseline difference is not a
               retention loss, so it is taken out.  This is why the corrected gap is smaller
               than the raw one, as in the paper's table.  Floors come from the same sampled
               task pairs for both (paired), so identical languages give exactly equal floors.
  Each has a percentile bootstrap interval over tasks (floors held fixed).
- Chance floor c (any language, kept for reference) and chance-normalized
  I* = (I - c) / (1 - c).
- A cell is unranked when either of its sides has more than 20% failed rollouts.  A cell
  without a single comparable pair is an error unless its failures explain it (unranked) or
  each task ran once on both sides (a one-trial protocol: rewards and diagnostics, no retention).
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import signal
from collections import Counter, defaultdict
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from operator import methodcaller

import numpy as np
import orjson

from jtau.arms import EN_PROMPT_VERSION
from jtau.errors import InputError
from jtau.retention import usage
from jtau.retention.arrays import MAX_BUCKET, Draws, GroupArrays, Scored, floors, ordered_sums
from jtau.retention.canonical import Canonicalizer, localized_space
from jtau.retention.cell import Cell, Level
from jtau.retention.outcomes import outcomes
from jtau.retention.traces import TRANSLATE

LEVELS = ("route", "full")
UNRANKED_ABOVE = 0.20
BASELINES = ("pooled", "source", "target")
DROPPED_WARNING = 0.01  # warn when length matching drops this share of cross pairs or more


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a language (or J-tau arm) and the user simulator that spoke it."""
    language: str
    user: str | None = None

    _hash: int = field(init=False, repr=False, compare=False)  # a key of many dicts: hashed once

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.language, self.user)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return Side, (self.language, self.user)

    def label(self, users_of_language: int = 1) -> str:
        return self.language if users_of_language < 2 or not self.user else f"{self.language} [{self.user}]"


@dataclass(slots=True)
class Entry:
    """One rollout in a group: its tokens (None when it failed) and where it was read."""
    tokens: tuple | None   # (route, full, full with the source's entities localized or None)
    seed: int | None
    replicate: int
    origin: str


@dataclass
class Group:
    """All sides of one model x benchmark x temperature x runtime x retrieval configuration."""
    model: str
    benchmark: str
    temperature: float
    runtime: str | None = None
    retrieval: str | None = None
    # task -> side -> identity (run, seed, replicate) -> Entry
    tasks: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
    rollouts: Counter = field(default_factory=Counter)      # per side
    failed: Counter = field(default_factory=Counter)        # per side: failures of every kind
    failures: dict = field(default_factory=lambda: defaultdict(Counter))  # side -> reason -> count
    tools: dict = field(default_factory=lambda: defaultdict(Counter))
    lengths: dict = field(default_factory=lambda: defaultdict(list))
    thoughts: dict = field(default_factory=dict)  # side -> (ASCII characters, characters)
    translating: Counter = field(default_factory=Counter)  # parsed rollouts with a Translate-like call
    rewards: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))  # side -> task -> rewards
    diagnostics: dict = field(default_factory=lambda: defaultdict(list))  # side -> [per-rollout dicts]
    actions: dict = field(default_factory=lambda: defaultdict(dict))  # side -> task -> first replicate's steps
    provenance: dict = field(default_factory=lambda: defaultdict(set))  # side -> {(jtau version, dataset digest)}
    usage: dict = field(default_factory=lambda: defaultdict(list))  # side -> [each rollout's cost and tokens]
    prompts: dict = field(default_factory=lambda: defaultdict(set))  # side -> {digest of a rollout's prompts}
    seeds: dict = field(default_factory=lambda: defaultdict(set))    # side -> {seed}

    @property
    def key(self) -> tuple:
        return (self.model, self.benchmark, self.temperature, self.runtime or "", self.retrieval or "")

    def users(self, language: str) -> int:
        return len({side.user for side in self.rollouts if side.language == language})


def base_benchmark(benchmark: str, language: str) -> str:
    """`airline_ja` in language ja is benchmark airline (traces that name the domain in full)."""
    return benchmark.removesuffix(f"_{language}")


PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


class Encoder:
    """`Canonicalizer.encode` with each distinct action of a benchmark and entity space encoded once
    (a trace's tokens are its actions' tokens, each action's encoded alone, in order: the same
    tokens, numbered alike).  An action that is no JSON, or whose JSON stands for another action
    (a tuple, a NaN), is encoded with its trace every time."""

    def __init__(self, canonical: Canonicalizer):
        self.canonical = canonical
        # (benchmark, entity space) -> (whether traces get localized tokens, action's JSON -> (action, tokens))
        self.tables: dict[tuple, tuple[bool, dict]] = {}

    def encode(self, benchmark: str, language: str, actions: list[dict]) -> tuple:
        space = (benchmark, localized_space(language))
        table = self.tables.get(space)
        if table is None:
            table = self.tables[space] = (self.canonical.encode(benchmark, language, [])[2] is not None, {})
        mapped, known = table
        tokens = []
        for action in actions:
            try:
                key = orjson.dumps(action, option=PASSTHROUGH)
            except TypeError:
                return self.canonical.encode(benchmark, language, actions)
            seen = known.get(key)
            if seen is None:
                route, full, localized = self.canonical.encode(benchmark, language, [action])
                seen = known[key] = (action, (route[0], full[0], localized[0] if mapped and localized else None))
            elif seen[0] != action:
                return self.canonical.encode(benchmark, language, actions)
            tokens.append(seen[1])
        if not tokens:
            return (), (), () if mapped else None
        route, full, localized = zip(*tokens)
        return route, full, localized if mapped else None


def group(traces, canonical: Canonicalizer, details: bool = False) -> dict[tuple, Group]:
    """Every trace, read once, into its cell; a second rollout with the identity of one already
    read (the same file imported twice, two runs labelled alike) is refused naming both.
    `details` keeps each side's first route per task (for the per-task view)."""
    groups: dict[tuple, Group] = {}
    sides: dict[tuple, Side] = {}
    benchmarks: dict[tuple, str] = {}
    encoder = Encoder(canonical)
    for trace in traces:
        benchmark = benchmarks.get((trace.benchmark, trace.language))
        if benchmark is None:
            benchmark = benchmarks[trace.benchmark, trace.language] = base_benchmark(trace.benchmark, trace.language)
        key = (trace.model, benchmark, trace.temperature, trace.runtime or "", trace.retrieval or "")
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(trace.model, benchmark, trace.temperature, trace.runtime, trace.retrieval)
        side = sides.get((trace.language, trace.user))
        if side is None:
            side = sides[trace.language, trace.user] = Side(trace.language, trace.user)
        replicates = g.tasks[trace.task_id][side]
        identity = trace.identity
        if identity in replicates:
            first = replicates[identity].origin or "an earlier trace"
            raise InputError(f"{trace.origin or 'a trace'}: the same rollout as {first} (model {trace.model}, "
                             f"{benchmark} {trace.language}, task {trace.task_id}, trial {trace.replicate}, seed "
                             f"{trace.seed}, run {trace.run}): a file imported twice? Keep one")
        g.rollouts[side] += 1
        if trace.usage:
            g.usage[side].append(trace.usage)
        g.prompts[side].add(trace.prompts)
        g.seeds[side].add(trace.seed)
        if trace.jtau or trace.dataset:
            g.provenance[side].add((trace.jtau or "", trace.dataset or ""))
        if trace.thoughts:
            text = "".join(trace.thoughts.split())
            a, n = g.thoughts.get(side, (0, 0))
            g.thoughts[side] = (a + sum(c.isascii() for c in text), n + len(text))
        if trace.reward is not None and trace.failure != "infrastructure_error":
            g.rewards[side][trace.task_id].append(trace.reward)
        if trace.diagnostics is not None:
            counts = dict(trace.diagnostics)
            if trace.parsed:
                counts.update(canonical.diagnose(benchmark, trace.actions))
            g.diagnostics[side].append((trace.task_id, counts))
        if not trace.parsed:
            g.failed[side] += 1
            g.failures[side][trace.failure] += 1
            replicates[identity] = Entry(None, trace.seed, trace.replicate, trace.origin)
            continue
        tokens = encoder.encode(benchmark, trace.language, trace.actions)
        replicates[identity] = Entry(tokens, trace.seed, trace.replicate, trace.origin)
        if details and trace.task_id not in g.actions[side]:
            g.actions[side][trace.task_id] = [canonical.names[t] for t in tokens[0]]
        tools = [a["tool"] for a in trace.actions]
        g.tools[side].update(tools)
        if TRANSLATE.search("\n".join(tools)):  # the pattern holds no newline: a match is within one name
            g.translating[side] += 1
        g.lengths[side].append(len(trace.actions))
    return groups


def language_pairs(groups: dict[tuple, Group], source: str, targets: list[str] | None,
                   pairs: list[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """The (source, target) language pairs to analyse: given, or the source against every other."""
    return pairs_of(sorted({side.language for g in groups.values() for side in g.rollouts}), source, targets, pairs)


def pairs_of(present: list[str], source: str, targets: list[str] | None,
             pairs: list[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """language_pairs of the languages `present` (sorted)."""
    if pairs:
        return pairs
    return [(source, lang) for lang in present if lang != source and (not targets or lang in targets)]


def side_pairs(g: Group, source: str, target: str) -> list[tuple[Side, Side]]:
    """Every (source side, target side) of a group for a language pair (a language spoken by two
    user simulators is two sides, kept apart)."""
    sides = sorted(g.rollouts, key=lambda s: (s.language, s.user or ""))
    return [(a, b) for a in sides if a.language == source for b in sides if b.language == target]


def mappings(source: Side, target: Side) -> tuple[bool, bool]:
    """Whether the source's (the target's) full tokens are compared with their entities localized:
    when only the other side is in J-tau's entity space."""
    return (localized_space(target.language) and not localized_space(source.language),
            localized_space(source.language) and not localized_space(target.language))


@dataclass
class Pairs:
    """Per compared task (one with within and cross pairs, in task order): mean within and cross
    agreement (each weighted by pairs of rollouts), and per task and length bucket the sums and
    counts of within and cross agreements; the source's and the target's own mean within agreement
    over the compared tasks where that side has a pair; the empty pairs excluded."""
    tasks: list[str]
    within: np.ndarray
    cross: np.ndarray
    within_source: np.ndarray
    within_source_tasks: list[str]
    within_target: np.ndarray
    matrices: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # ws, wn, cs, cn: tasks x buckets
    empty: int = 0

    @cached_property
    def within_by_task(self) -> dict[str, float]:
        return dict(zip(self.tasks, self.within.tolist()))

    @cached_property
    def cross_by_task(self) -> dict[str, float]:
        return dict(zip(self.tasks, self.cross.tolist()))

    @cached_property
    def within_source_by_task(self) -> dict[str, float]:
        return dict(zip(self.within_source_tasks, self.within_source.tolist()))


def _matrices(rows: np.ndarray, compared: int, within: list[Scored], cross: Scored
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per compared task and bucket: sums (added in the pairs' order) and counts of within and
    cross agreements; `rows` maps a task to its row (-1: not compared)."""
    shape, size = (compared, MAX_BUCKET + 1), compared * (MAX_BUCKET + 1)
    out = []
    for parts in (within, [cross]):
        cells = [rows[p.task] * (MAX_BUCKET + 1) + p.bucket for p in parts]
        kept = [c >= 0 for c in cells]
        cell = np.concatenate([c[k] for c, k in zip(cells, kept)])
        values = np.concatenate([p.weighted()[k] for p, k in zip(parts, kept)])
        counts = np.concatenate([p.n[k] for p, k in zip(parts, kept)])
        out += [ordered_sums(cell, values, size).reshape(shape),
                np.bincount(cell, weights=counts, minlength=size).reshape(shape)]
    return out[0], out[1], out[2], out[3]


def collect(g: Group, level: int, source: Side, target: Side, arrays: GroupArrays | None = None) -> Pairs:
    """The pairs of a cell at a level (`arrays`: the group's, kept across its cells)."""
    arrays = arrays or GroupArrays(g.tasks)
    size = len(arrays.task_ids)
    ws, wt = arrays.within(source, level), arrays.within(target, level)
    cross = arrays.cross(source, target, level, *mappings(source, target))
    within_pairs = np.bincount(ws.pairs.task, minlength=size) + np.bincount(wt.pairs.task, minlength=size)
    compared = np.flatnonzero((within_pairs > 0) & (np.bincount(cross.task, minlength=size) > 0))
    within_total = ordered_sums(wt.pairs.task, wt.pairs.weighted(), size, initial=ws.total)
    cross_total = ordered_sums(cross.task, cross.weighted(), size)
    cross_count = np.bincount(cross.task, weights=cross.n, minlength=size)
    by_source = compared[ws.count[compared] > 0]
    by_target = compared[wt.count[compared] > 0]
    rows = np.full(size, -1, dtype=np.int64)
    rows[compared] = np.arange(len(compared))
    return Pairs(tasks=[arrays.task_ids[t] for t in compared.tolist()],
                 within=within_total[compared] / (ws.count + wt.count)[compared],
                 cross=cross_total[compared] / cross_count[compared],
                 within_source=ws.total[by_source] / ws.count[by_source],
                 within_source_tasks=[arrays.task_ids[t] for t in by_source.tolist()],
                 within_target=wt.total[by_target] / wt.count[by_target],
                 matrices=_matrices(rows, len(compared), [ws.pairs, wt.pairs], cross),
                 empty=ws.pairs.empty + wt.pairs.empty + cross.empty)


def _matched(ws, wn, cs, cn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matched Iwithin and Icross, and the share of cross pairs kept, for rows of bucket totals."""
    keep = wn > 0
    weights = np.where(keep, cn, 0.0)
    total = weights.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = (np.where(keep, ws / np.where(keep, wn, 1), 0) * weights).sum(axis=-1) / total
        cross = np.where(keep, cs, 0).sum(axis=-1) / total
        kept = total / cn.sum(axis=-1)
    return within, cross, kept


def chance_floors(g: Group, level: int, source: Side, target: Side, permutations: int, draws: Draws,
                  arrays: GroupArrays | None = None) -> tuple[float | None, float | None, float | None]:
    """(c_within, c_cross, c_any) from the same random pairs of different tasks: for each pair
    (i, j) one side L, c_within compares i's and j's traces in L, c_cross i's source trace
    with j's target trace; the first `permutations` pairs where neither comparison is of two
    empty traces.  Tasks, sides and traces are drawn at once: 2 x `permutations` pairs (i, j),
    one side and four uniform numbers that pick a trace of a task each (arrays.floors)."""
    drawn = floors(arrays or GroupArrays(g.tasks), level, source, target, *mappings(source, target), permutations,
                   draws)
    if drawn is None or not len(drawn[0]):
        return None, None, None
    within, cross = drawn
    return float(np.mean(within)), float(np.mean(cross)), float(np.mean(np.concatenate([within, cross])))


def _corrected(value, floor):
    if value is None or floor is None or floor >= 1:
        return None
    return (value - floor) / (1 - floor)


def _mean(values) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _ci(samples: np.ndarray) -> list[float] | None:
    samples = samples[np.isfinite(samples)]
    return [float(x) for x in np.percentile(samples, [2.5, 97.5])] if len(samples) else None


def _resampled(rng: np.random.Generator, bootstrap: int, n: int) -> np.ndarray:
    """How often each of n tasks is drawn in each resample (bincount of offset draws: one C call)."""
    draws = rng.integers(n, size=(bootstrap, n)) + np.arange(bootstrap)[:, None] * n
    return np.bincount(draws.ravel(), minlength=bootstrap * n).reshape(bootstrap, n).astype(float)


def level_numbers(g: Group, level: int, source: Side, target: Side, permutations: int, bootstrap: int,
                  draws: Draws, baseline: str = "pooled", pairs: Pairs | None = None,
                  arrays: GroupArrays | None = None) -> Level:
    arrays = arrays or GroupArrays(g.tasks)
    p = pairs or collect(g, level, source, target, arrays)
    within_task, cross_task = p.within, p.cross
    iw_pooled, ic = _mean(within_task), _mean(cross_task)
    iw_source, iw_target = _mean(p.within_source), _mean(p.within_target)
    iw = {"pooled": iw_pooled, "source": iw_source, "target": iw_target}[baseline]
    c_within, c_cross, floor = chance_floors(g, level, source, target, permutations, draws, arrays)
    ws, wn, cs, cn = p.matrices
    m_within, m_cross, kept = (_matched(ws.sum(0), wn.sum(0), cs.sum(0), cn.sum(0)) if len(p.tasks)
                               else (np.nan, np.nan, np.nan))
    matched_within: float | None = None if not np.isfinite(m_within) else float(m_within)
    matched_cross: float | None = None if not np.isfinite(m_cross) else float(m_cross)
    shift = (c_within - c_cross) if c_within is not None and c_cross is not None else None
    gap_raw = iw - ic if iw is not None and ic is not None else None
    gap_matched = (matched_within - matched_cross
                   if matched_within is not None and matched_cross is not None else None)
    numbers: Level = {
        "tasks": len(p.tasks), "pairs_within": int(wn.sum()), "pairs_cross": int(cn.sum()),
        "empty_pairs_excluded": p.empty, "baseline": baseline,
        "iwithin": iw, "iwithin_pooled": iw_pooled, "iwithin_source": iw_source, "iwithin_target": iw_target,
        "icross": ic, "retention": ic / iw if iw and ic is not None else None,
        "iwithin_matched": matched_within, "icross_matched": matched_cross,
        "retention_matched": (matched_cross / matched_within
                              if matched_within and matched_cross is not None else None),
        "matching_dropped": None if not np.isfinite(kept) else float(1 - kept),
        "gap_raw": gap_raw, "gap_naive": gap_raw, "gap_matched": gap_matched,
        "gap_corrected": gap_matched - shift if gap_matched is not None and shift is not None else None,
        "floor_within": c_within, "floor_cross": c_cross, "floor": floor,
        "iwithin_corrected": _corrected(iw, floor), "icross_corrected": _corrected(ic, floor),
        "retention_corrected": None,
        "gap_raw_ci": None, "gap_matched_ci": None, "gap_corrected_ci": None, "retention_matched_ci": None,
        "retention_ci": None,
    }
    corrected_within, corrected_cross = numbers["iwithin_corrected"], numbers["icross_corrected"]
    if corrected_within and corrected_cross is not None:  # (both or neither: one set of tasks)
        numbers["retention_corrected"] = corrected_cross / corrected_within
    if len(p.tasks) >= 2 and bootstrap:
        n = len(p.tasks)
        counts = draws.make(("bootstrap", bootstrap, n), lambda rng: _resampled(rng, bootstrap, n))
        k = ws.shape[1]
        totals = counts @ np.hstack([ws, wn, cs, cn, within_task[:, None], cross_task[:, None]])  # one product
        boot_w, boot_c = totals[:, 4 * k] / n, totals[:, 4 * k + 1] / n
        bw, bc, _ = _matched(totals[:, :k], totals[:, k:2 * k], totals[:, 2 * k:3 * k], totals[:, 3 * k:4 * k])
        numbers["gap_raw_ci"] = _ci(boot_w - boot_c)
        numbers["retention_ci"] = _ci(boot_c / np.where(boot_w == 0, np.nan, boot_w))
        numbers["gap_matched_ci"] = _ci(bw - bc)
        numbers["retention_matched_ci"] = _ci(bc / np.where(bw == 0, np.nan, bw))
        if shift is not None:
            numbers["gap_corrected_ci"] = _ci(bw - bc - shift)
    return numbers


def analyze_pair(g: Group, source: Side, target: Side, permutations: int, bootstrap: int, seed: int = 0,
                 baseline: str = "pooled", details: bool = False, arrays: GroupArrays | None = None) -> Cell:
    """The numbers of one cell: a group and a pair of sides.  `details` adds the per-task view,
    rewards and diagnostics (retention/outcomes.py); `arrays`: the group's, kept across its cells."""
    arrays = arrays or GroupArrays(g.tasks)
    draws = Draws(seed)
    labels = {source: source.label(g.users(source.language)), target: target.label(g.users(target.language))}
    rates = {labels[side]: g.failed[side] / g.rollouts[side] for side in (source, target) if g.rollouts[side]}
    over = sorted(label for label, rate in rates.items() if rate > UNRANKED_ABOVE)
    rollouts = g.rollouts[source] + g.rollouts[target]
    failed = g.failed[source] + g.failed[target]
    calls = {side: sum(g.tools[side].values()) for side in (source, target) if g.tools[side]}
    pairs = {name: collect(g, index, source, target, arrays) for index, name in enumerate(LEVELS)}
    levels = {name: level_numbers(g, index, source, target, permutations, bootstrap, draws, baseline, pairs[name],
                                  arrays)
              for index, name in enumerate(LEVELS)}
    empty = [name for name, n in levels.items() if not n["tasks"]]
    warnings = [f"{name}: length matching dropped {n['matching_dropped']:.1%} of the cross pairs (no within "
                "pair of the same length)" for name, n in levels.items()
                if n["matching_dropped"] and n["matching_dropped"] >= DROPPED_WARNING]
    cell: Cell = {
        "model": g.model, "benchmark": g.benchmark, "temperature": g.temperature,
        "runtime": g.runtime, "retrieval": g.retrieval,
        "source": labels[source], "target": labels[target], "source_user": source.user, "target_user": target.user,
        "rollouts": rollouts, "failures": failed, "failure_rate": failed / rollouts if rollouts else 0.0,
        "failure_rate_by_language": rates,
        "failures_by_language": {labels[side]: dict(sorted(g.failures[side].items())) for side in (source, target)},
        "ranked": not over, "unranked_because": [f"{label}: {rates[label]:.1%} failed (> 20%)" for label in over],
        "mean_length": {labels[side]: float(np.mean(g.lengths[side])) for side in (source, target) if g.lengths[side]},
        "tool_share": {labels[side]: {tool: k / calls[side] for tool, k in sorted(g.tools[side].items())}
                       for side in (source, target) if side in calls},
        "levels": levels, "warnings": warnings, "comparable": not empty,
        # what the rollouts cost, per side: agent, customer and judge money and tokens (retention/usage.py)
        "usage": {labels[side]: usage.total(g.usage[side]) for side in (source, target) if g.usage[side]},
        "signatures": {labels[side]: signature(g, side) for side in (source, target)},
        # which J-tau each side ran on (jtau version, dataset digest), where the rollouts record it
        "provenance": {labels[side]: {"jtau": sorted({v for v, _ in g.provenance[side] if v}),
                                      "dataset": sorted({d for _, d in g.provenance[side] if d})}
                       for side in (source, target) if g.provenance[side]},
    }
    if details:
        cell.update(outcomes(g, source, target, labels, pairs))  # type: ignore[typeddict-item]  # its keys: Cell's
    return cell


def _digest(values: set, width: int = 12) -> str:
    """A short digest of a set of values; `unknown` where one of them is unknown (None)."""
    if not values or None in values:
        return "unknown"
    return hashlib.sha256("\n".join(sorted(map(str, values))).encode()).hexdigest()[:width]


def signature(g: Group, side: Side) -> str:
    """One line that says which protocol produced a side's numbers, in the manner of sacrebleu's
    signatures: two numbers with the same signature come from the same J-tau, tau2, data, arm,
    customer (and its prompt version), agent model, temperature, seeds, trials and prompts shown.
    What the rollouts do not record reads `unknown`, never a guess."""
    versions: set[str | None] = {v for v, _ in g.provenance[side]} if g.provenance[side] else {None}
    datasets = {d for _, d in g.provenance[side] if d} or {None}
    trials = max(map(len, map(methodcaller("get", side, ()), g.tasks.values())), default=0)
    user = side.user or "unknown"
    if "en-prompt" in user:
        user += f".v{EN_PROMPT_VERSION}"
    data = next(iter(datasets))[:12] if len(datasets) == 1 and None not in datasets else _digest(datasets)
    return "|".join([f"jtau:{','.join(sorted(v for v in versions if v)) if None not in versions else 'unknown'}",
                     f"tau2:{g.runtime or 'unknown'}", f"data:{data}",
                     f"arm:{side.language}", f"user:{user}", f"agent:{g.model}", f"T:{g.temperature:g}",
                     f"seeds:{_digest(g.seeds[side], 8)}", f"trials:{trials}", f"prompts:{_digest(g.prompts[side])}"])


ONE_TRIAL = "two trials per task are needed; each task ran once (reward and diagnostics need no pair)"


def one_trial(g: Group, source: Side, target: Side) -> bool:
    """Whether every task of the cell ran once on each side (τ-Multilingual's protocol, pass^1)."""
    return all(len(by_side.get(side, ())) <= 1 for by_side in g.tasks.values() for side in (source, target))


def cell_name(cell: Cell) -> str:
    """A cell as one line names it: model, benchmark, T, runtime, retrieval, pair."""
    parts = [cell["model"], cell["benchmark"], f"T={cell['temperature']:g}"]
    parts += [p for p in (cell.get("runtime"), cell.get("retrieval")) if p]
    return " ".join(parts) + f" {cell['source']}->{cell['target']}"


Job = tuple[tuple, list[tuple[Side, Side]]]  # a group's key and pairs of its sides
_WORK: dict = {}  # what a pool's workers (forked) analyse: groups, jobs and settings


def _analyze_job(index: int) -> list[Cell]:
    """The cells of one job, in order, the group's arrays shared by them."""
    key, sides = _WORK["jobs"][index]
    g = _WORK["groups"][key]
    arrays = GroupArrays(g.tasks)
    permutations, bootstrap, seed, baseline, details = _WORK["settings"]
    return [analyze_pair(g, a, b, permutations, bootstrap, seed, baseline, details, arrays=arrays) for a, b in sides]


def default_workers() -> int:
    """Processes for the cells: one per available CPU (numpy's BLAS runs one thread in each: see
    `one_blas_thread`)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def one_blas_thread():
    """numpy's BLAS held to one thread while the cells are analysed, in this process and the ones it
    forks: its idle threads spin, and two processes that each run products on every CPU are slower
    than one; the numbers do not depend on it."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _jobs(cells: list[tuple], parts: int) -> list[Job]:
    """The cells (key, source side, target side) as jobs of one group each, a group's cells split
    so that there are about `parts` jobs."""
    size = max(1, math.ceil(len(cells) / parts))
    jobs: list[Job] = []
    for key, a, b in cells:
        if not jobs or jobs[-1][0] != key or len(jobs[-1][1]) == size:
            jobs.append((key, []))
        jobs[-1][1].append((a, b))
    return jobs


def analyze_cells(groups: dict[tuple, Group], cells: list[tuple], settings: tuple, workers: int,
                   progress=None) -> list[Cell]:
    """Every cell's numbers, in order: in this process, or in `workers` forked processes (each cell
    draws from its own generator, so the numbers do not depend on how many)."""
    forks = workers > 1 and "fork" in multiprocessing.get_all_start_methods()
    jobs = _jobs(cells, 4 * workers if forks else 1)
    results: list[Cell] = []
    _WORK.update(groups=groups, jobs=jobs, settings=settings)
    with ExitStack() as stack:
        stack.callback(_WORK.clear)
        stack.enter_context(one_blas_thread())
        if forks and len(jobs) > 1:
            # Ctrl-C is the parent's to handle: it ends the pool; a worker stops without a traceback
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(
                min(workers, len(jobs)), initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)))
            parts: Iterable[list[Cell]] = pool.imap(_analyze_job, range(len(jobs)))
        else:
            parts = map(_analyze_job, range(len(jobs)))
        for part in parts:
            results += part
            if progress:
                progress(len(results), len(cells))
    return results
