"""The retention analysis of one cell (model x benchmark x temperature x language pair), at
two levels (tool names; tools with canonical arguments).

Definitions (the method's, with the choices jtau adds marked *):
- agreement(a, b) = 1 - Levenshtein(a, b) / max(|a|, |b|) over action tokens; a pair of two
  empty traces is excluded and counted, never scored 1.0; unparsed rollouts take part in no
  pair and count toward their language's parse-failure rate.
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
- A cell is unranked when any of its two languages has more than 20% unparsed rollouts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import Levenshtein

from jtau.retention.canonical import Canonicalizer
from jtau.retention.traces import TRANSLATE

LEVELS = ("route", "full")
UNRANKED_ABOVE = 0.20
MAX_BUCKET = 20
BASELINES = ("pooled", "source", "target")
DROPPED_WARNING = 0.01  # warn when length matching drops this share of cross pairs or more


@dataclass
class Group:
    """All languages of one model x benchmark x temperature."""
    model: str
    benchmark: str
    temperature: float
    # task -> language -> replicate -> (route tokens, full tokens), or None when unparsed
    tasks: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
    rollouts: Counter = field(default_factory=Counter)      # per language
    unparsed: Counter = field(default_factory=Counter)      # per language
    tools: dict = field(default_factory=lambda: defaultdict(Counter))
    lengths: dict = field(default_factory=lambda: defaultdict(list))
    thoughts: dict = field(default_factory=dict)  # language -> (ASCII characters, characters)
    translating: Counter = field(default_factory=Counter)  # parsed rollouts with a Translate-like call


def base_benchmark(benchmark: str, language: str) -> str:
    """`airline_ja` in language ja is benchmark airline."""
    return benchmark.removesuffix(f"_{language}")


def group(traces, canonical: Canonicalizer) -> dict[tuple, Group]:
    """Every trace, read once, into its model x benchmark x temperature group."""
    groups: dict[tuple, Group] = {}
    for trace in traces:
        benchmark = base_benchmark(trace.benchmark, trace.language)
        key = (trace.model, benchmark, trace.temperature)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(trace.model, benchmark, trace.temperature)
        g.rollouts[trace.language] += 1
        if trace.thoughts:
            text = "".join(trace.thoughts.split())
            a, n = g.thoughts.get(trace.language, (0, 0))
            g.thoughts[trace.language] = (a + sum(c.isascii() for c in text), n + len(text))
        if not trace.parsed:
            g.unparsed[trace.language] += 1
            g.tasks[trace.task_id][trace.language][trace.replicate] = None
            continue
        g.tasks[trace.task_id][trace.language][trace.replicate] = canonical.encode(
            trace.benchmark, trace.language, trace.actions)
        g.tools[trace.language].update(a["tool"] for a in trace.actions)
        if any(TRANSLATE.search(a["tool"]) for a in trace.actions):
            g.translating[trace.language] += 1
        g.lengths[trace.language].append(len(trace.actions))
    return groups


def language_pairs(groups: dict[tuple, Group], source: str, targets: list[str] | None,
                   pairs: list[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """The (source, target) pairs to analyse: given, or the source against every other language."""
    if pairs:
        return pairs
    present = sorted({lang for g in groups.values() for lang in g.rollouts})
    return [(source, lang) for lang in present if lang != source and (not targets or lang in targets)]


def agreement(a: tuple, b: tuple) -> float | None:
    if not a and not b:
        return None
    return Levenshtein.normalized_similarity(a, b)


def _bucket(trace: tuple) -> int:
    return min(len(trace), MAX_BUCKET)


@dataclass
class Pairs:
    """Per task (in task order): within and cross agreements with their length buckets."""
    within: list[list[tuple[float, int]]] = field(default_factory=list)
    cross: list[list[tuple[float, int]]] = field(default_factory=list)
    within_source: list[float] = field(default_factory=list)   # per task means
    within_target: list[float] = field(default_factory=list)
    empty: int = 0


def collect(g: Group, level: int, source: str, target: str) -> Pairs:
    out = Pairs()
    for languages in g.tasks.values():
        within, by_language = [], {}
        for language in (source, target):
            reps = sorted((r, t[level]) for r, t in languages.get(language, {}).items() if t is not None)
            values = []
            for i in range(len(reps)):
                for j in range(i + 1, len(reps)):
                    value = agreement(reps[i][1], reps[j][1])
                    if value is None:
                        out.empty += 1
                        continue
                    values.append(value)
                    within.append((value, _bucket(reps[i][1])))
            by_language[language] = values
        cross = []
        for rs, a in languages.get(source, {}).items():
            for rt, b in languages.get(target, {}).items():
                if a is None or b is None or rs == rt:
                    continue  # cross-seed only: decoding noise enters both sides alike
                value = agreement(a[level], b[level])
                if value is None:
                    out.empty += 1
                    continue
                cross.append((value, _bucket(a[level])))
        if within and cross:
            out.within.append(within)
            out.cross.append(cross)
            if by_language[source]:
                out.within_source.append(sum(by_language[source]) / len(by_language[source]))
            if by_language[target]:
                out.within_target.append(sum(by_language[target]) / len(by_language[target]))
    return out


def _matrices(p: Pairs) -> tuple[np.ndarray, ...]:
    """Per task and bucket: sums and counts of within and cross agreements (tasks x buckets)."""
    shape = (len(p.within), MAX_BUCKET + 1)
    ws, wn, cs, cn = (np.zeros(shape) for _ in range(4))
    for t, (within, cross) in enumerate(zip(p.within, p.cross)):
        for value, bucket in within:
            ws[t, bucket] += value
            wn[t, bucket] += 1
        for value, bucket in cross:
            cs[t, bucket] += value
            cn[t, bucket] += 1
    return ws, wn, cs, cn


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


def chance_floors(g: Group, level: int, source: str, target: str, permutations: int,
                  rng: np.random.Generator) -> tuple[float | None, float | None, float | None]:
    """(c_within, c_cross, c_any) from the same random pairs of different tasks: for each pair
    (i, j) one language L, c_within compares i's and j's traces in L, c_cross i's source trace
    with j's target trace.  Indices are drawn at once (vectorized); agreements one by one."""
    pools = []
    for langs in g.tasks.values():
        src = [t[level] for t in langs.get(source, {}).values() if t is not None]
        tgt = [t[level] for t in langs.get(target, {}).values() if t is not None]
        if src and tgt:
            pools.append((src, tgt))
    if len(pools) < 2:
        return None, None, None
    draws = 2 * permutations
    i, j = rng.integers(len(pools), size=draws), rng.integers(len(pools), size=draws)
    in_target = rng.integers(2, size=draws).astype(bool)
    picks = rng.random((draws, 4))
    within, cross = [], []
    for k in np.flatnonzero(i != j):
        a_src_pool, a_tgt_pool = pools[i[k]]
        b_src_pool, b_tgt_pool = pools[j[k]]
        a_src = a_src_pool[int(picks[k, 0] * len(a_src_pool))]
        b_tgt = b_tgt_pool[int(picks[k, 1] * len(b_tgt_pool))]
        if in_target[k]:
            a_lang, b_lang = a_tgt_pool[int(picks[k, 2] * len(a_tgt_pool))], b_tgt
        else:
            a_lang, b_lang = a_src, b_src_pool[int(picks[k, 3] * len(b_src_pool))]
        w, c = agreement(a_lang, b_lang), agreement(a_src, b_tgt)
        if w is None or c is None:
            continue
        within.append(w)
        cross.append(c)
        if len(within) == permutations:
            break
    if not within:
        return None, None, None
    return float(np.mean(within)), float(np.mean(cross)), float(np.mean(within + cross))


def _corrected(value, floor):
    if value is None or floor is None or floor >= 1:
        return None
    return (value - floor) / (1 - floor)


def _mean(values) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _ci(samples: np.ndarray) -> list[float] | None:
    samples = samples[np.isfinite(samples)]
    return [float(x) for x in np.percentile(samples, [2.5, 97.5])] if len(samples) else None


def level_numbers(g: Group, level: int, source: str, target: str, permutations: int, bootstrap: int,
                  rng: np.random.Generator, baseline: str = "pooled") -> dict:
    p = collect(g, level, source, target)
    within_task = np.array([sum(v for v, _ in w) / len(w) for w in p.within])  # plain Python: tiny lists
    cross_task = np.array([sum(v for v, _ in c) / len(c) for c in p.cross])
    iw_pooled, ic = _mean(within_task), _mean(cross_task)
    iw_source, iw_target = _mean(p.within_source), _mean(p.within_target)
    iw = {"pooled": iw_pooled, "source": iw_source, "target": iw_target}[baseline]
    c_within, c_cross, floor = chance_floors(g, level, source, target, permutations, rng)
    ws, wn, cs, cn = _matrices(p)
    m_within, m_cross, kept = (_matched(ws.sum(0), wn.sum(0), cs.sum(0), cn.sum(0)) if len(p.within)
                               else (np.nan, np.nan, np.nan))
    m_within = None if not np.isfinite(m_within) else float(m_within)
    m_cross = None if not np.isfinite(m_cross) else float(m_cross)
    shift = (c_within - c_cross) if c_within is not None else None
    gap_raw = iw - ic if iw is not None and ic is not None else None
    gap_matched = m_within - m_cross if m_within is not None and m_cross is not None else None
    numbers = {
        "tasks": len(p.within), "pairs_within": int(wn.sum()), "pairs_cross": int(cn.sum()),
        "empty_pairs_excluded": p.empty, "baseline": baseline,
        "iwithin": iw, "iwithin_pooled": iw_pooled, "iwithin_source": iw_source, "iwithin_target": iw_target,
        "icross": ic, "retention": ic / iw if iw else None,
        "iwithin_matched": m_within, "icross_matched": m_cross,
        "retention_matched": m_cross / m_within if m_within else None,
        "matching_dropped": None if not np.isfinite(kept) else float(1 - kept),
        "gap_raw": gap_raw, "gap_naive": gap_raw, "gap_matched": gap_matched,
        "gap_corrected": gap_matched - shift if gap_matched is not None and shift is not None else None,
        "floor_within": c_within, "floor_cross": c_cross, "floor": floor,
        "iwithin_corrected": _corrected(iw, floor), "icross_corrected": _corrected(ic, floor),
        "retention_corrected": None,
        "gap_raw_ci": None, "gap_matched_ci": None, "gap_corrected_ci": None, "retention_matched_ci": None,
        "retention_ci": None,
    }
    if numbers["iwithin_corrected"]:
        numbers["retention_corrected"] = numbers["icross_corrected"] / numbers["iwithin_corrected"]
    if len(p.within) >= 2 and bootstrap:
        n = len(p.within)
        # how often each task is drawn in each resample (bincount of offset draws: one C call)
        draws = rng.integers(n, size=(bootstrap, n)) + np.arange(bootstrap)[:, None] * n
        counts = np.bincount(draws.ravel(), minlength=bootstrap * n).reshape(bootstrap, n).astype(float)
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


def analyze_pair(g: Group, source: str, target: str, permutations: int, bootstrap: int, seed: int = 0,
                 baseline: str = "pooled") -> dict:
    rng = np.random.default_rng(seed)
    rates = {lang: g.unparsed[lang] / g.rollouts[lang] for lang in (source, target) if g.rollouts[lang]}
    over = sorted(lang for lang, rate in rates.items() if rate > UNRANKED_ABOVE)
    rollouts = g.rollouts[source] + g.rollouts[target]
    unparsed = g.unparsed[source] + g.unparsed[target]
    calls = {lang: sum(g.tools[lang].values()) for lang in (source, target) if g.tools[lang]}
    levels = {name: level_numbers(g, index, source, target, permutations, bootstrap, rng, baseline)
              for index, name in enumerate(LEVELS)}
    warnings = [f"{name}: length matching dropped {n['matching_dropped']:.1%} of the cross pairs (no within "
                "pair of the same length)" for name, n in levels.items()
                if n["matching_dropped"] and n["matching_dropped"] >= DROPPED_WARNING]
    return {
        "model": g.model, "benchmark": g.benchmark, "temperature": g.temperature,
        "source": source, "target": target,
        "rollouts": rollouts, "parse_failures": unparsed, "parse_failure_rate": unparsed / rollouts if rollouts else 0.0,
        "parse_failure_rate_by_language": rates,
        "ranked": not over, "unranked_because": [f"{lang}: {rates[lang]:.1%} unparsed (> 20%)" for lang in over],
        "mean_length": {lang: float(np.mean(g.lengths[lang])) for lang in (source, target) if g.lengths[lang]},
        "tool_share": {lang: {tool: k / calls[lang] for tool, k in sorted(g.tools[lang].items())}
                       for lang in (source, target) if lang in calls},
        "levels": levels, "warnings": warnings,
    }


def analyze(traces, canonical: Canonicalizer, source: str = "en", target: str | None = None,
            permutations: int = 1000, bootstrap: int = 1000, progress=None, baseline: str = "pooled",
            pairs: list[tuple[str, str]] | None = None, summary: dict | None = None) -> list[dict]:
    """One result per model x benchmark x temperature x language pair; the corpus is read once.
    `target` None analyses the source against every other language present.  Pass a dict as
    `summary` to receive the paper-shaped summary (summary.py) too."""
    if baseline not in BASELINES:
        raise ValueError(f"baseline {baseline!r}: one of {', '.join(BASELINES)}")
    groups = group(traces, canonical)
    wanted = language_pairs(groups, source, [target] if target else None, pairs)
    jobs = [(key, s, t) for key in sorted(groups, key=lambda k: (k[0], k[1], k[2])) for s, t in wanted
            if groups[key].rollouts[s] and groups[key].rollouts[t]]
    results = []
    for key, s, t in jobs:
        results.append(analyze_pair(groups[key], s, t, permutations, bootstrap, baseline=baseline))
        if progress:
            progress(len(results), len(jobs))
    if summary is not None:
        from jtau.retention.summary import summarize

        summary.update(summarize(results, groups.values()))
    return results
