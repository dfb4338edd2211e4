"""The pairs of rollouts of a cell on arrays: every task of a side at once.

A group's rollouts become, per side, arrays over its completed rollouts (task by task in the
group's task order, each task's in the order they were read) and ids of their token sequences.
Within pairs (per side: computed once for every cell of the side), cross pairs and the chance
floors' random pairs are then index arithmetic, and each distinct pair of sequences of a task is
scored once.

Each number is the one the pair-by-pair definition in analysis.py gives, to the bit: a sum that
feeds a mean adds its terms one after another in the order of the pairs, as Python's `sum` does
(`ordered_sums`), never with numpy's pairwise summation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

import numpy as np
from rapidfuzz.distance import Levenshtein

MAX_BUCKET = 20


class Sequences:
    """Token sequences by id, each distinct sequence stored once."""

    def __init__(self):
        self.ids: dict[tuple, int] = {}
        self.items: list[tuple] = []
        self.lengths = np.zeros(0, dtype=np.int64)

    def of(self, sequences: list[tuple]) -> np.ndarray:
        """The ids of `sequences`, new ones added."""
        ids, items = self.ids, self.items
        new = [s for s in dict.fromkeys(sequences) if s not in ids]
        if new:
            ids.update(zip(new, range(len(items), len(items) + len(new))))
            items += new
            self.lengths = np.concatenate([self.lengths, np.fromiter(map(len, new), dtype=np.int64, count=len(new))])
        return np.fromiter(map(ids.__getitem__, sequences), dtype=np.int64, count=len(sequences))

    def agreements(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """1 - Levenshtein(a, b) / max(|a|, |b|) per pair of ids (pairs of two empty sequences excluded
        by the caller)."""
        items = self.items
        return np.fromiter(map(Levenshtein.normalized_similarity, [items[i] for i in a.tolist()],
                               [items[i] for i in b.tolist()]), dtype=np.float64, count=len(a))


class Draws:
    """A cell's random numbers: a generator seeded alike for every cell, each sequence of draws
    made once per process and replayed for the cells that draw alike (the same sizes in the same
    order: the same numbers).  What it returns is shared, read-only."""
    KEEP = 16  # sequences of draws kept
    _made: dict[tuple, tuple] = {}  # (seed, draws so far) -> (numbers, generator state after them)

    def __init__(self, seed: int):
        self.seed = seed
        self.drawn: tuple = (seed,)
        self.state = None  # the generator's state after the draws so far (None: as seeded)

    def make(self, what: tuple, draw: Callable[[np.random.Generator], object]):
        """The numbers `draw` takes from the generator as it stands, `what` naming them (kind and sizes)."""
        key = self.drawn + (what,)
        made = self._made.pop(key, None)
        if made is None:
            rng = np.random.default_rng(self.seed)
            if self.state is not None:
                rng.bit_generator.state = self.state
            numbers = draw(rng)
            for array in numbers if isinstance(numbers, tuple) else (numbers,):
                array.flags.writeable = False
            made = numbers, rng.bit_generator.state
        self._made[key] = made  # the most recent last
        while len(self._made) > self.KEEP:
            self._made.pop(next(iter(self._made)), None)
        self.drawn, self.state = key, made[1]
        return made[0]


def ordered_sums(segment: np.ndarray, values: np.ndarray, size: int, initial: np.ndarray | None = None
                 ) -> np.ndarray:
    """Per segment 0..size-1: `initial` (0.0) plus its values added one after another in the given
    order (Python's `sum`, to the bit)."""
    out = np.zeros(size) if initial is None else initial.copy()
    if not len(values):
        return out
    order = np.argsort(segment, kind="stable")
    values = values[order]
    counts = np.bincount(segment, minlength=size)
    first = np.cumsum(counts) - counts
    for k in range(int(counts.max())):
        live = np.flatnonzero(counts > k)
        out[live] += values[first[live] + k]
    return out


def buckets(lengths: np.ndarray) -> np.ndarray:
    return np.minimum(lengths, MAX_BUCKET)


@dataclass
class SideRollouts:
    """A side's completed rollouts in a group: task by task in the group's task order, each task's
    in the order read."""
    entries: list
    count: np.ndarray     # per task: how many
    order: np.ndarray     # the rollouts in within order: per task, by identity (as text)
    seed: np.ndarray      # per rollout: its seed's code, -1 when unknown
    replicate: np.ndarray  # per rollout: its trial index's code
    ids: dict = field(default_factory=dict)  # (level, mapped) -> sequence id per rollout
    start: np.ndarray = field(init=False)  # per task: its first rollout
    task: np.ndarray = field(init=False)   # per rollout: its task

    def __post_init__(self):
        self.start = np.cumsum(self.count) - self.count
        self.task = np.repeat(np.arange(len(self.count)), self.count)


def _codes(values: list, codes: dict) -> np.ndarray:
    """`values` as codes, a new value numbered len(`codes`) (shared: one numbering for a group)."""
    for value in dict.fromkeys(values):
        codes.setdefault(value, len(codes))
    return np.fromiter(map(codes.__getitem__, values), dtype=np.int64, count=len(values))


def side_rollouts(tasks: list, side, seeds: dict, replicates: dict) -> SideRollouts:
    """The completed rollouts of `side` across `tasks` (a group's side -> identity -> entry, per
    task); `seeds` and `replicates` number the values seen, for every side of the group alike
    (`seeds` numbers None, an unknown seed, -1)."""
    per_task = [[(identity, e) for identity, e in (sides.get(side) or {}).items() if e.tokens is not None]
                for sides in tasks]
    read = list(chain.from_iterable(per_task))
    identities, entries = list(map(itemgetter(0), read)), list(map(itemgetter(1), read))
    texts = {identity: str(identity) for identity in dict.fromkeys(identities)}
    rank = {text: r for r, text in enumerate(sorted(set(texts.values())))}  # identities in order of their text
    by_text = _codes(identities, {identity: rank[text] for identity, text in texts.items()})
    count = np.fromiter(map(len, per_task), dtype=np.int64, count=len(per_task))
    order = np.lexsort((by_text, np.repeat(np.arange(len(count)), count)))
    return SideRollouts(entries, count, order, _codes([e.seed for e in entries], seeds),
                        _codes([e.replicate for e in entries], replicates))


@dataclass
class Scored:
    """Pairs of distinct sequences of a task, in the order of the definition, less the pairs of two
    empty sequences: task, agreement, length bucket of the first sequence, how many pairs of rollouts;
    with `empty`, the pairs of rollouts left out."""
    task: np.ndarray
    value: np.ndarray
    bucket: np.ndarray
    n: np.ndarray
    empty: int

    def weighted(self) -> np.ndarray:
        return self.value * self.n


def score(sequences: Sequences, task, a, b, n) -> Scored:
    """The pairs (task, sequence a, sequence b, count) scored; pairs of two empty sequences set apart."""
    lengths = sequences.lengths
    empty = (lengths[a] == 0) & (lengths[b] == 0)
    if not empty.any():
        return Scored(task, sequences.agreements(a, b), buckets(lengths[a]), n, 0)
    keep = ~empty
    task, a, b, excluded, n = task[keep], a[keep], b[keep], int(n[empty].sum()), n[keep]
    return Scored(task, sequences.agreements(a, b), buckets(lengths[a]), n, excluded)


def _first_positions(task: np.ndarray, seq: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per rollout (in a task-by-task order): where its sequence first occurs in its task."""
    if not len(seq):
        return seq
    key = task * (int(seq.max()) + 1) + seq
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first[inverse] - start[task]


@dataclass
class Within:
    """A side's within pairs at one level (see `within`), with per task the ordered sum of agreement
    times pairs and the number of pairs."""
    pairs: Scored
    total: np.ndarray
    count: np.ndarray


def _ramps(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c - 1 for each count c, one after another."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _combos(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (l, r) of indices with left[l] == right[r] (both sorted ascending), by that value,
    then l, then r."""
    values, l_first, l_count = np.unique(left, return_index=True, return_counts=True)
    r_first = np.searchsorted(right, values, "left")
    r_count = np.searchsorted(right, values, "right") - r_first
    combos = l_count * r_count
    group, index = np.repeat(np.arange(len(values)), combos), _ramps(combos)  # index: of a pair among its value's
    return l_first[group] + index // r_count[group], r_first[group] + index % r_count[group]


def within(sequences: Sequences, rollouts: SideRollouts, ids: np.ndarray) -> Within:
    """Every pair of a side's replicates of a task (in within order: the earlier one first, its
    length the bucket), one entry per distinct (earlier, later) pair of sequences with how many
    pairs of rollouts have it, in the order they first occur: by the later rollout, then by where
    the earlier sequence first occurs.

    Pairs of rollouts are never listed one by one (a task run 2,500 times has 3.1 million): each
    distinct sequence is paired with every later rollout of its task, and counts the rollouts of
    it that come before that one."""
    count, start = rollouts.count, rollouts.start
    seq, task = ids[rollouts.order], rollouts.task
    rank = np.arange(len(seq)) - start[task]  # a rollout's place in its task
    position = _first_positions(task, seq, start)
    first = np.flatnonzero(position == rank)  # a distinct sequence's first rollout
    later = count[task[first]] - rank[first] - 1
    if not later.sum():
        none = np.zeros(0, dtype=np.int64)
        return Within(Scored(none, np.zeros(0), none, none, 0), np.zeros(len(count)), np.zeros(len(count), np.int64))
    width = int(count.max())
    earlier = np.repeat(first, later)
    j = earlier + 1 + _ramps(later)
    base = (task[earlier] * width + position[earlier]) * width
    occurrences = np.sort((task * width + position) * width + rank)
    before = np.searchsorted(occurrences, base + rank[j]) - np.searchsorted(occurrences, base)
    keys, inverse = np.unique(base + position[j], return_inverse=True)
    n = np.bincount(inverse, weights=before).astype(np.int64)
    latest = np.full(len(keys), width, dtype=np.int64)
    np.minimum.at(latest, inverse, rank[j])
    pair_task, a_position, b_position = keys // (width * width), keys // width % width, keys % width
    order = np.lexsort((a_position, latest, pair_task))
    pair_task, a_position, b_position = pair_task[order], a_position[order], b_position[order]
    pairs = score(sequences, pair_task, seq[start[pair_task] + a_position], seq[start[pair_task] + b_position],
                  n[order])
    total = ordered_sums(pairs.task, pairs.weighted(), len(count))
    return Within(pairs, total, np.bincount(pairs.task, weights=pairs.n, minlength=len(count)).astype(np.int64))


def _tallies(side: SideRollouts, position: np.ndarray, width: int, value: np.ndarray | None = None,
             values: int = 1, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(key, rollouts) per distinct (task, `value`, sequence) of a side's rollouts (`rows` of them:
    all), the key (task * `values` + value) * `width` + where the sequence first occurs, ascending."""
    rows = np.arange(len(position)) if rows is None else rows
    group = side.task[rows] * values + (0 if value is None else value[rows])
    return np.unique(group * width + position[rows], return_counts=True)


def cross(sequences: Sequences, source: SideRollouts, source_ids: np.ndarray, target: SideRollouts,
          target_ids: np.ndarray) -> Scored:
    """Every cross-seed pair (source, target) of a task, one entry per distinct pair of sequences
    (in the order each side's sequences first occur, source first) with how many pairs of rollouts
    have it; a pair is cross-seed when its seeds differ (trial indices, where a seed is unknown).

    Pairs of rollouts are never listed one by one: a distinct pair of sequences has all its pairs
    of rollouts less those of one seed (both known) and those of one trial index (a seed unknown),
    counted by joining the two sides' tallies of each seed and each trial index."""
    s_position = _first_positions(source.task, source_ids, source.start)
    t_position = _first_positions(target.task, target_ids, target.start)
    width = int(max(source.count.max(initial=0), target.count.max(initial=0), 1))
    s_keys, s_n = _tallies(source, s_position, width)
    t_keys, t_n = _tallies(target, t_position, width)
    a, b = _combos(s_keys // width, t_keys // width)
    pairs = s_keys[a] * width + t_keys[b] % width  # (task, source position, target position), ascending
    n = s_n[a] * t_n[b]
    s_known, t_known = np.flatnonzero(source.seed >= 0), np.flatnonzero(target.seed >= 0)
    for s_rows, t_rows, s_value, t_value, sign in (
            (s_known, t_known, source.seed, target.seed, -1),           # pairs of one known seed
            (None, None, source.replicate, target.replicate, -1),       # pairs of one trial index,
            (s_known, t_known, source.replicate, target.replicate, 1)):  # less those of known seeds
        values = max(int(s_value.max(initial=0)), int(t_value.max(initial=0))) + 1
        sk, sc = _tallies(source, s_position, width, s_value, values, s_rows)
        tk, tc = _tallies(target, t_position, width, t_value, values, t_rows)
        x, y = _combos(sk // width, tk // width)
        key = (sk[x] // width // values * width + sk[x] % width) * width + tk[y] % width
        np.add.at(n, np.searchsorted(pairs, key), sign * sc[x] * tc[y])
    kept = n > 0
    key = pairs[kept]
    pair_task, a_position, b_position = key // (width * width), key // width % width, key % width
    return score(sequences, pair_task, source_ids[source.start[pair_task] + a_position],
                 target_ids[target.start[pair_task] + b_position], n[kept])


class GroupArrays:
    """A group's rollouts as arrays: each side's rollouts, sequence ids and within pairs built on
    first use and kept for every cell of the side."""

    def __init__(self, tasks: dict):
        self.task_ids = list(tasks)
        self._tasks = list(tasks.values())
        self.sequences = Sequences()
        self._sides: dict = {}
        self._within: dict = {}
        self._codes: tuple[dict, dict] = ({None: -1}, {})  # seed -> code (-1: unknown), trial index -> code

    def side(self, side) -> SideRollouts:
        if side not in self._sides:
            self._sides[side] = side_rollouts(self._tasks, side, *self._codes)
        return self._sides[side]

    def ids(self, side, level: int, mapped: bool = False) -> np.ndarray:
        """Sequence ids of a side's rollouts at a level (0 route, 1 full); `mapped`: full tokens
        with the source's entities localized, where a rollout has them."""
        rollouts = self.side(side)
        key = (level, bool(mapped) and level == 1)
        if key not in rollouts.ids:
            tokens = [e.tokens for e in rollouts.entries]
            if key[1]:
                sequences = [full if localized is None else localized for _, full, localized in tokens]
            else:
                sequences = list(map(itemgetter(level), tokens))
            rollouts.ids[key] = self.sequences.of(sequences)
        return rollouts.ids[key]

    def within(self, side, level: int) -> Within:
        if (side, level) not in self._within:
            self._within[side, level] = within(self.sequences, self.side(side), self.ids(side, level))
        return self._within[side, level]

    def cross(self, source, target, level: int, map_source: bool, map_target: bool) -> Scored:
        return cross(self.sequences, self.side(source), self.ids(source, level, map_source), self.side(target),
                     self.ids(target, level, map_target))


def _floor_draws(rng: np.random.Generator, tasks: int, draws: int) -> tuple[np.ndarray, ...]:
    """Pairs of tasks (i, j), a side and four uniform numbers that pick a trace, per draw."""
    i, j = rng.integers(tasks, size=draws), rng.integers(tasks, size=draws)
    return i, j, rng.integers(2, size=draws).astype(bool), rng.random((draws, 4))


def floors(arrays: GroupArrays, level: int, source, target, map_source: bool, map_target: bool,
           permutations: int, draws: Draws) -> tuple[np.ndarray, np.ndarray] | None:
    """The chance floors' agreements (within, cross) of random pairs of different tasks (see
    analysis.chance_floors); None with fewer than two tasks to draw from."""
    s, t = arrays.side(source), arrays.side(target)
    pools = np.flatnonzero((s.count > 0) & (t.count > 0))
    if len(pools) < 2:
        return None
    i, j, in_target, picks = draws.make(("floors", len(pools), 2 * permutations),
                                        lambda rng: _floor_draws(rng, len(pools), 2 * permutations))
    k = np.flatnonzero(i != j)
    a, b, in_target, picks = pools[i[k]], pools[j[k]], in_target[k], picks[k]
    s_start, t_start = s.start, t.start

    def pick(start, count, task, column):
        return start[task] + (picks[:, column] * count[task]).astype(np.int64)

    a_src, b_tgt = pick(s_start, s.count, a, 0), pick(t_start, t.count, b, 1)
    a_tgt, b_src = pick(t_start, t.count, a, 2), pick(s_start, s.count, b, 3)
    s_ids, t_ids = arrays.ids(source, level), arrays.ids(target, level)
    w_a = np.where(in_target, t_ids[a_tgt], s_ids[a_src])
    w_b = np.where(in_target, t_ids[b_tgt], s_ids[b_src])
    c_a, c_b = arrays.ids(source, level, map_source)[a_src], arrays.ids(target, level, map_target)[b_tgt]
    lengths = arrays.sequences.lengths
    valid = ((lengths[w_a] > 0) | (lengths[w_b] > 0)) & ((lengths[c_a] > 0) | (lengths[c_b] > 0))
    chosen = np.flatnonzero(valid)[:permutations]
    sequences = arrays.sequences
    return sequences.agreements(w_a[chosen], w_b[chosen]), sequences.agreements(c_a[chosen], c_b[chosen])
