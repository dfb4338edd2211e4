"""The retention analysis of one cell (model x benchmark x temperature), at two levels.

Definitions (the method's, with the choices jtau adds marked *):
- agreement(a, b) = 1 - Levenshtein(a, b) / max(|a|, |b|) over action tokens; a pair of two
  empty traces is excluded and counted, never scored 1.0; unparsed rollouts take part in no
  pair and count toward the parse-failure rate.
- Iwithin: agreement of two replicates of a task in the same language (every pair of distinct
  replicates, both languages*), averaged per task, then over tasks.  Icross: agreement of a
  source replicate with a target replicate of another seed (cross-seed), averaged likewise.
  Only tasks with both within and cross pairs count*.  Retention = Icross / Iwithin.
- Length-matched*: pairs are bucketed by their longer trace; the within mean of each bucket is
  weighted by the bucket's share of cross pairs, so that both sides have the same length mix.
- Chance floor c: the mean agreement of random pairs of traces of different tasks of the cell
  (any language*, `permutations` pairs, fixed seed).  Chance-corrected I* = (I - c) / (1 - c).
- Corrected gap = Iwithin* - Icross*; its interval is a percentile bootstrap over tasks.
- A cell whose parse-failure rate exceeds 20% is unranked.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import Levenshtein

from jtau.retention.canonical import Canonicalizer

LEVELS = ("route", "full")
UNRANKED_ABOVE = 0.20
MAX_BUCKET = 20


@dataclass
class Cell:
    model: str
    benchmark: str
    temperature: float
    # task -> language -> replicate -> (route tokens, full tokens), or None when unparsed
    tasks: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
    rollouts: int = 0
    unparsed: int = 0
    tools: dict = field(default_factory=lambda: defaultdict(Counter))
    lengths: dict = field(default_factory=lambda: defaultdict(list))


def group(traces, canonical: Canonicalizer, source: str, target: str) -> dict[tuple, Cell]:
    cells: dict[tuple, Cell] = {}
    for trace in traces:
        if trace.language not in (source, target):
            continue
        benchmark = trace.benchmark.removesuffix(f"_{target}")
        key = (trace.model, benchmark, trace.temperature)
        cell = cells.get(key)
        if cell is None:
            cell = cells[key] = Cell(trace.model, benchmark, trace.temperature)
        cell.rollouts += 1
        if not trace.parsed:
            cell.unparsed += 1
            cell.tasks[trace.task_id][trace.language][trace.replicate] = None
            continue
        cell.tasks[trace.task_id][trace.language][trace.replicate] = canonical.encode(
            trace.benchmark, trace.language, trace.actions)
        cell.tools[trace.language].update(a["tool"] for a in trace.actions)
        cell.lengths[trace.language].append(len(trace.actions))
    return cells


def agreement(a: tuple, b: tuple) -> float | None:
    if not a and not b:
        return None
    return Levenshtein.normalized_similarity(a, b)


@dataclass
class Pairs:
    within: list[float] = field(default_factory=list)     # per task
    cross: list[float] = field(default_factory=list)      # per task
    within_pairs: list[tuple[float, int]] = field(default_factory=list)   # (agreement, bucket)
    cross_pairs: list[tuple[float, int]] = field(default_factory=list)
    within_source: list[float] = field(default_factory=list)
    within_target: list[float] = field(default_factory=list)
    empty: int = 0


def _bucket(a: tuple, b: tuple) -> int:
    return min(max(len(a), len(b)), MAX_BUCKET)


def pairs(cell: Cell, level: int, source: str, target: str) -> Pairs:
    out = Pairs()
    for languages in cell.tasks.values():
        within, cross = [], []
        for language, bucket in ((source, out.within_source), (target, out.within_target)):
            reps = sorted((r, t[level]) for r, t in languages.get(language, {}).items() if t is not None)
            for i in range(len(reps)):
                for j in range(i + 1, len(reps)):
                    value = agreement(reps[i][1], reps[j][1])
                    if value is None:
                        out.empty += 1
                        continue
                    within.append(value)
                    bucket.append(value)
                    out.within_pairs.append((value, _bucket(reps[i][1], reps[j][1])))
        src = [(r, t[level]) for r, t in languages.get(source, {}).items() if t is not None]
        tgt = [(r, t[level]) for r, t in languages.get(target, {}).items() if t is not None]
        for rs, a in src:
            for rt, b in tgt:
                if rs == rt:
                    continue  # cross-seed only: decoding noise enters both sides alike
                value = agreement(a, b)
                if value is None:
                    out.empty += 1
                    continue
                cross.append(value)
                out.cross_pairs.append((value, _bucket(a, b)))
        if within and cross:
            out.within.append(float(np.mean(within)))
            out.cross.append(float(np.mean(cross)))
    return out


def length_matched(p: Pairs) -> tuple[float | None, float | None]:
    within, cross = defaultdict(list), defaultdict(list)
    for value, bucket in p.within_pairs:
        within[bucket].append(value)
    for value, bucket in p.cross_pairs:
        cross[bucket].append(value)
    shared = [b for b in cross if b in within]
    weights = np.array([len(cross[b]) for b in shared], dtype=float)
    if not shared or weights.sum() == 0:
        return None, None
    weights /= weights.sum()
    return (float(sum(w * np.mean(within[b]) for w, b in zip(weights, shared))),
            float(sum(w * np.mean(cross[b]) for w, b in zip(weights, shared))))


def chance_floor(cell: Cell, level: int, permutations: int, rng: np.random.Generator) -> float | None:
    """Mean agreement of random pairs of traces from different tasks of the cell."""
    pool = [(task, t[level]) for task, languages in cell.tasks.items()
            for reps in languages.values() for t in reps.values() if t is not None]
    if len({task for task, _ in pool}) < 2:
        return None
    values, tries = [], 0
    while len(values) < permutations and tries < permutations * 20:
        tries += 1
        i, j = rng.integers(len(pool), size=2)
        if pool[i][0] == pool[j][0]:
            continue
        value = agreement(pool[i][1], pool[j][1])
        if value is not None:
            values.append(value)
    return float(np.mean(values)) if values else None


def _corrected(value, floor):
    if value is None or floor is None or floor >= 1:
        return None
    return (value - floor) / (1 - floor)


def _mean(values) -> float | None:
    return float(np.mean(values)) if len(values) else None


def level_numbers(cell: Cell, level: int, source: str, target: str, permutations: int,
                  bootstrap: int, rng: np.random.Generator) -> dict:
    p = pairs(cell, level, source, target)
    within, cross = np.array(p.within), np.array(p.cross)
    iw, ic = _mean(within), _mean(cross)
    floor = chance_floor(cell, level, permutations, rng)
    iw_c, ic_c = _corrected(iw, floor), _corrected(ic, floor)
    lm_w, lm_c = length_matched(p)
    numbers = {
        "tasks": len(within), "pairs_within": len(p.within_pairs), "pairs_cross": len(p.cross_pairs),
        "empty_pairs_excluded": p.empty,
        "iwithin": iw, "iwithin_source": _mean(p.within_source), "iwithin_target": _mean(p.within_target),
        "icross": ic, "retention": ic / iw if iw else None,
        "gap_naive": iw - ic if iw is not None and ic is not None else None,
        "iwithin_length_matched": lm_w, "icross_length_matched": lm_c,
        "gap_length_matched": lm_w - lm_c if lm_w is not None else None,
        "floor": floor, "iwithin_corrected": iw_c, "icross_corrected": ic_c,
        "retention_corrected": ic_c / iw_c if iw_c else None,
        "gap_corrected": iw_c - ic_c if iw_c is not None and ic_c is not None else None,
        "gap_corrected_ci": None, "retention_ci": None,
    }
    if len(within) >= 2 and floor is not None and floor < 1 and bootstrap:
        index = rng.integers(len(within), size=(bootstrap, len(within)))
        w = (within[index].mean(axis=1) - floor) / (1 - floor)
        c = (cross[index].mean(axis=1) - floor) / (1 - floor)
        numbers["gap_corrected_ci"] = [float(x) for x in np.percentile(w - c, [2.5, 97.5])]
        r = cross[index].mean(axis=1) / np.where(within[index].mean(axis=1) == 0, np.nan,
                                                  within[index].mean(axis=1))
        numbers["retention_ci"] = [float(x) for x in np.nanpercentile(r, [2.5, 97.5])]
    return numbers


def analyze_cell(cell: Cell, source: str, target: str, permutations: int, bootstrap: int,
                 seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    calls = {lang: sum(c.values()) for lang, c in cell.tools.items()}
    rate = cell.unparsed / cell.rollouts if cell.rollouts else 0.0
    return {
        "model": cell.model, "benchmark": cell.benchmark, "temperature": cell.temperature,
        "rollouts": cell.rollouts, "parse_failures": cell.unparsed, "parse_failure_rate": rate,
        "ranked": rate <= UNRANKED_ABOVE,
        "mean_length": {lang: float(np.mean(v)) for lang, v in sorted(cell.lengths.items())},
        "tool_share": {lang: {tool: n / calls[lang] for tool, n in sorted(c.items())}
                       for lang, c in sorted(cell.tools.items())},
        "levels": {name: level_numbers(cell, index, source, target, permutations, bootstrap, rng)
                   for index, name in enumerate(LEVELS)},
    }


def analyze(traces, canonical: Canonicalizer, source: str = "en", target: str = "ja",
            permutations: int = 1000, bootstrap: int = 1000, progress=None) -> list[dict]:
    cells = group(traces, canonical, source, target)
    results = []
    for key in sorted(cells, key=lambda k: (k[0], k[1], k[2])):
        results.append(analyze_cell(cells[key], source, target, permutations, bootstrap))
        if progress:
            progress(len(results), len(cells))
    return results
