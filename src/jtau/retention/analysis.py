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
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import Levenshtein

from jtau.errors import InputError
from jtau.retention import usage
from jtau.retention.canonical import Canonicalizer, localized_space
from jtau.retention.traces import TRANSLATE

LEVELS = ("route", "full")
UNRANKED_ABOVE = 0.20
MAX_BUCKET = 20
BASELINES = ("pooled", "source", "target")
DROPPED_WARNING = 0.01  # warn when length matching drops this share of cross pairs or more


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a language (or J-tau arm) and the user simulator that spoke it."""
    language: str
    user: str | None = None

    def label(self, users_of_language: int = 1) -> str:
        return self.language if users_of_language < 2 or not self.user else f"{self.language} [{self.user}]"


@dataclass
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


def group(traces, canonical: Canonicalizer, details: bool = False) -> dict[tuple, Group]:
    """Every trace, read once, into its cell; a second rollout with the identity of one already
    read (the same file imported twice, two runs labelled alike) is refused naming both.
    `details` keeps each side's first route per task (for the per-task view)."""
    groups: dict[tuple, Group] = {}
    for trace in traces:
        benchmark = base_benchmark(trace.benchmark, trace.language)
        key = (trace.model, benchmark, trace.temperature, trace.runtime or "", trace.retrieval or "")
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(trace.model, benchmark, trace.temperature, trace.runtime, trace.retrieval)
        side = Side(trace.language, trace.user)
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
        tokens = canonical.encode(benchmark, trace.language, trace.actions)
        replicates[identity] = Entry(tokens, trace.seed, trace.replicate, trace.origin)
        if details and trace.task_id not in g.actions[side]:
            g.actions[side][trace.task_id] = [canonical.names[t] for t in tokens[0]]
        g.tools[side].update(a["tool"] for a in trace.actions)
        if any(TRANSLATE.search(a["tool"]) for a in trace.actions):
            g.translating[side] += 1
        g.lengths[side].append(len(trace.actions))
    return groups


def language_pairs(groups: dict[tuple, Group], source: str, targets: list[str] | None,
                   pairs: list[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """The (source, target) language pairs to analyse: given, or the source against every other."""
    if pairs:
        return pairs
    present = sorted({side.language for g in groups.values() for side in g.rollouts})
    return [(source, lang) for lang in present if lang != source and (not targets or lang in targets)]


def side_pairs(g: Group, source: str, target: str) -> list[tuple[Side, Side]]:
    """Every (source side, target side) of a group for a language pair (a language spoken by two
    user simulators is two sides, kept apart)."""
    sides = sorted(g.rollouts, key=lambda s: (s.language, s.user or ""))
    return [(a, b) for a in sides if a.language == source for b in sides if b.language == target]


def agreement(a: tuple, b: tuple) -> float | None:
    if not a and not b:
        return None
    return Levenshtein.normalized_similarity(a, b)


def _bucket(trace: tuple) -> int:
    return min(len(trace), MAX_BUCKET)


def level_tokens(entry: Entry, level: int, mapped: bool) -> tuple:
    """An entry's tokens at a level (0 route, 1 full); `mapped`: full tokens with the source's
    entities localized, for a comparison with a side in J-tau's entity space."""
    route, full, localized = entry.tokens
    if level == 0:
        return route
    return localized if mapped and localized is not None else full


def different_seeds(a: Entry, b: Entry) -> bool:
    """Cross pairs are cross-seed (decoding noise enters both sides alike): seeds when both are
    known, else trial indices."""
    if a.seed is not None and b.seed is not None:
        return a.seed != b.seed
    return a.replicate != b.replicate


@dataclass
class Pairs:
    """Per task (in task order): within and cross agreements, each with its length bucket and how
    many pairs of rollouts have it."""
    within: list[list[tuple[float, int, int]]] = field(default_factory=list)
    cross: list[list[tuple[float, int, int]]] = field(default_factory=list)
    within_source: list[float] = field(default_factory=list)   # per task means
    within_target: list[float] = field(default_factory=list)
    cross_by_task: dict = field(default_factory=dict)          # task -> mean cross agreement
    within_by_task: dict = field(default_factory=dict)         # task -> mean within agreement
    within_source_by_task: dict = field(default_factory=dict)  # task -> mean within agreement of the source
    empty: int = 0


def _within(reps: list[tuple], out: "Pairs") -> tuple[list[tuple[float, int, int]], float, int]:
    """Every pair of a side's replicates (in order: the bucket is the earlier one's length) as
    (agreement, bucket, how many pairs), computed once per distinct pair of token sequences (100
    replicates of a task that took 8 routes: 36 comparisons, not 4,950); with the sum and count."""
    seen: Counter = Counter()
    ordered: Counter = Counter()  # (earlier, later) -> pairs
    for tokens in reps:
        for earlier, n in seen.items():
            ordered[(earlier, tokens)] += n
        seen[tokens] += 1
    pairs, total, count, cache = [], 0.0, 0, {}
    for (a, b), n in ordered.items():
        key = (a, b) if a <= b else (b, a)
        if key not in cache:
            cache[key] = agreement(a, b)
        value = cache[key]
        if value is None:
            out.empty += n
            continue
        pairs.append((value, _bucket(a), n))
        total += value * n
        count += n
    return pairs, total, count


def _cross(sources: list[Entry], targets: list[Entry], level: int, map_source: bool, map_target: bool,
           out: "Pairs") -> list[tuple[float, int, int]]:
    """Every cross-seed pair (source, target) as (agreement, bucket, how many pairs), computed once
    per distinct pair of token sequences: all pairs by distinct sequences, less the same-seed ones."""
    a_tokens = [level_tokens(a, level, map_source) for a in sources]
    b_tokens = [level_tokens(b, level, map_target) for b in targets]
    counts: Counter = Counter()
    for ta in Counter(a_tokens).items():
        for tb in Counter(b_tokens).items():
            counts[(ta[0], tb[0])] += ta[1] * tb[1]
    by_seed: dict = defaultdict(list)
    by_replicate: dict = defaultdict(list)
    for b, tb in zip(targets, b_tokens):
        (by_seed[b.seed] if b.seed is not None else by_replicate[b.replicate]).append(tb)
    for a, ta in zip(sources, a_tokens):  # the pairs that are not cross-seed (different_seeds)
        same = by_seed.get(a.seed, []) if a.seed is not None else []
        same = same + by_replicate.get(a.replicate, []) + (
            [tb for b, tb in zip(targets, b_tokens) if a.seed is None and b.seed is not None
             and b.replicate == a.replicate])
        for tb in same:
            counts[(ta, tb)] -= 1
    pairs = []
    for (ta, tb), n in counts.items():
        if n <= 0:
            continue
        value = agreement(ta, tb)
        if value is None:
            out.empty += n
            continue
        pairs.append((value, _bucket(ta), n))
    return pairs


def collect(g: Group, level: int, source: Side, target: Side) -> Pairs:
    out = Pairs()
    map_source = localized_space(target.language) and not localized_space(source.language)
    map_target = localized_space(source.language) and not localized_space(target.language)
    for task_id, sides in g.tasks.items():
        within, by_side = [], {}
        for side in (source, target):
            reps = [level_tokens(e, level, False) for _, e in sorted(sides.get(side, {}).items(),
                                                                       key=lambda kv: str(kv[0]))
                    if e.tokens is not None]
            pairs, total, count = _within(reps, out)
            within += pairs
            by_side[side] = (total, count)
        cross = _cross([a for a in sides.get(source, {}).values() if a.tokens is not None],
                       [b for b in sides.get(target, {}).values() if b.tokens is not None],
                       level, map_source, map_target, out)
        if within and cross:
            out.within.append(within)
            out.cross.append(cross)
            out.within_by_task[task_id] = _weighted_mean(within)
            out.cross_by_task[task_id] = _weighted_mean(cross)
            if by_side[source][1]:
                out.within_source.append(by_side[source][0] / by_side[source][1])
                out.within_source_by_task[task_id] = out.within_source[-1]
            if by_side[target][1]:
                out.within_target.append(by_side[target][0] / by_side[target][1])
    return out


def _weighted_mean(pairs: list[tuple[float, int, int]]) -> float:
    return sum(v * n for v, _, n in pairs) / sum(n for _, _, n in pairs)


def _matrices(p: Pairs) -> tuple[np.ndarray, ...]:
    """Per task and bucket: sums and counts of within and cross agreements (tasks x buckets)."""
    shape = (len(p.within), MAX_BUCKET + 1)
    ws, wn, cs, cn = (np.zeros(shape) for _ in range(4))
    for t, (within, cross) in enumerate(zip(p.within, p.cross)):
        for value, bucket, n in within:
            ws[t, bucket] += value * n
            wn[t, bucket] += n
        for value, bucket, n in cross:
            cs[t, bucket] += value * n
            cn[t, bucket] += n
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


def chance_floors(g: Group, level: int, source: Side, target: Side, permutations: int,
                  rng: np.random.Generator) -> tuple[float | None, float | None, float | None]:
    """(c_within, c_cross, c_any) from the same random pairs of different tasks: for each pair
    (i, j) one side L, c_within compares i's and j's traces in L, c_cross i's source trace
    with j's target trace.  Indices are drawn at once (vectorized); agreements one by one."""
    map_source = localized_space(target.language) and not localized_space(source.language)
    map_target = localized_space(source.language) and not localized_space(target.language)
    pools = []
    for sides in g.tasks.values():
        src = [e for e in sides.get(source, {}).values() if e.tokens is not None]
        tgt = [e for e in sides.get(target, {}).values() if e.tokens is not None]
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
            a_side, b_side = a_tgt_pool[int(picks[k, 2] * len(a_tgt_pool))], b_tgt
        else:
            a_side, b_side = a_src, b_src_pool[int(picks[k, 3] * len(b_src_pool))]
        w = agreement(level_tokens(a_side, level, False), level_tokens(b_side, level, False))
        c = agreement(level_tokens(a_src, level, map_source), level_tokens(b_tgt, level, map_target))
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


def level_numbers(g: Group, level: int, source: Side, target: Side, permutations: int, bootstrap: int,
                  rng: np.random.Generator, baseline: str = "pooled", pairs: Pairs | None = None) -> dict:
    p = pairs or collect(g, level, source, target)
    within_task = np.array([_weighted_mean(w) for w in p.within])  # plain Python: tiny lists
    cross_task = np.array([_weighted_mean(c) for c in p.cross])
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


def analyze_pair(g: Group, source: Side, target: Side, permutations: int, bootstrap: int, seed: int = 0,
                 baseline: str = "pooled", details: bool = False) -> dict:
    """The numbers of one cell: a group and a pair of sides.  `details` adds the per-task view,
    rewards and diagnostics (retention/outcomes.py)."""
    rng = np.random.default_rng(seed)
    labels = {source: source.label(g.users(source.language)), target: target.label(g.users(target.language))}
    rates = {labels[side]: g.failed[side] / g.rollouts[side] for side in (source, target) if g.rollouts[side]}
    over = sorted(label for label, rate in rates.items() if rate > UNRANKED_ABOVE)
    rollouts = g.rollouts[source] + g.rollouts[target]
    failed = g.failed[source] + g.failed[target]
    calls = {side: sum(g.tools[side].values()) for side in (source, target) if g.tools[side]}
    pairs = {name: collect(g, index, source, target) for index, name in enumerate(LEVELS)}
    levels = {name: level_numbers(g, index, source, target, permutations, bootstrap, rng, baseline, pairs[name])
              for index, name in enumerate(LEVELS)}
    empty = [name for name, n in levels.items() if not n["tasks"]]
    warnings = [f"{name}: length matching dropped {n['matching_dropped']:.1%} of the cross pairs (no within "
                "pair of the same length)" for name, n in levels.items()
                if n["matching_dropped"] and n["matching_dropped"] >= DROPPED_WARNING]
    cell = {
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
        from jtau.retention.outcomes import outcomes

        cell.update(outcomes(g, source, target, labels, pairs))
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
    from jtau.arms import EN_PROMPT_VERSION

    versions = {v for v, _ in g.provenance[side]} if g.provenance[side] else {None}
    datasets = {d for _, d in g.provenance[side] if d} or {None}
    trials = max((len(by_side.get(side, ())) for by_side in g.tasks.values()), default=0)
    user = side.user or "unknown"
    if "en-prompt" in user:
        user += f".v{EN_PROMPT_VERSION}"
    return "|".join([f"jtau:{','.join(sorted(versions)) if None not in versions else 'unknown'}",
                     f"tau2:{g.runtime or 'unknown'}",
                     f"data:{next(iter(datasets))[:12] if len(datasets) == 1 and None not in datasets else _digest(datasets)}",
                     f"arm:{side.language}", f"user:{user}", f"agent:{g.model}", f"T:{g.temperature:g}",
                     f"seeds:{_digest(g.seeds[side], 8)}", f"trials:{trials}", f"prompts:{_digest(g.prompts[side])}"])


ONE_TRIAL = "two trials per task are needed; each task ran once (reward and diagnostics need no pair)"


def one_trial(g: Group, source: Side, target: Side) -> bool:
    """Whether every task of the cell ran once on each side (τ-Multilingual's protocol, pass^1)."""
    return all(len(by_side.get(side, ())) <= 1 for by_side in g.tasks.values() for side in (source, target))


def cell_name(cell: dict) -> str:
    """A cell as one line names it: model, benchmark, T, runtime, retrieval, pair."""
    parts = [cell["model"], cell["benchmark"], f"T={cell['temperature']:g}"]
    parts += [p for p in (cell.get("runtime"), cell.get("retrieval")) if p]
    return " ".join(parts) + f" {cell['source']}->{cell['target']}"


def analyze(traces, canonical: Canonicalizer, source: str = "en", target: str | None = None,
            permutations: int = 1000, bootstrap: int = 1000, progress=None, baseline: str = "pooled",
            pairs: list[tuple[str, str]] | None = None, summary: dict | None = None,
            details: bool = False, groups_out: dict | None = None, where: str = "the traces") -> list[dict]:
    """One result per cell (model x benchmark x temperature x runtime x retrieval configuration x
    pair of sides); the corpus is read once.  `target` None analyses the source against every
    other language present.  A requested pair without a single comparable pair of rollouts is an
    error (InputError naming `where` the traces are and the cells), never a row of dashes, unless
    each task ran once on both sides (a one-trial protocol: the cell says `retention_unmeasured`).  Pass
    a dict as `summary` to receive the paper-shaped summary (summary.py) too, one as `groups_out`
    for the groups."""
    if baseline not in BASELINES:
        raise ValueError(f"baseline {baseline!r}: one of {', '.join(BASELINES)}")
    groups = group(traces, canonical, details)
    if groups_out is not None:
        groups_out.update(groups)
    wanted = language_pairs(groups, source, [target] if target else None, pairs)
    jobs = [(key, a, b) for key in sorted(groups) for s, t in wanted for a, b in side_pairs(groups[key], s, t)]
    results = []
    for key, a, b in jobs:
        results.append(analyze_pair(groups[key], a, b, permutations, bootstrap, baseline=baseline, details=details))
        if progress:
            progress(len(results), len(jobs))
    # a cell without a pair is explained by its failures (shown, unranked), by routes that were
    # all empty (a task set where the agent calls nothing: shown, n = 0) or by a one-trial protocol
    # (each task ran once on both sides: reward and diagnostics stand, retention is not measured),
    # or it is an error
    for (key, a, b), cell in zip(jobs, results):
        if not cell["comparable"] and one_trial(groups[key], a, b):
            cell["retention_unmeasured"] = ONE_TRIAL
    empty = [cell_name(cell) for cell in results if not cell["comparable"] and cell["ranked"]
             and not cell.get("retention_unmeasured")
             and not any(n["empty_pairs_excluded"] for n in cell["levels"].values())]
    if empty:
        from jtau.listing import first

        raise InputError(f"{where}: {len(empty)} cell{'s have' if len(empty) > 1 else ' has'} no pair of rollouts to "
                         "compare (each side needs a task with two completed trials, and the two sides trials of "
                         "different seeds)", first(empty))
    if summary is not None:
        from jtau.retention.summary import summarize

        summary.update(summarize(results, groups.values()))
    return results
