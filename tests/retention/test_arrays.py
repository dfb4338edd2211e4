"""retention/arrays.py's pairs against the definition read pair by pair: every within pair (i < j
of a task) and every cross-seed pair, tallied one pair of rollouts at a time in plain Python."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from jtau.retention.arrays import MAX_BUCKET, Sequences, SideRollouts, cross, within


def side(rng: random.Random, tasks: int, unknown: float) -> tuple[list[int], list[int], list[int], list[int]]:
    """count per task, the within order (a permutation inside each task), seed codes (-1 unknown),
    trial-index codes."""
    count = [rng.randrange(7) for _ in range(tasks)]
    order: list[int] = []
    for first, c in zip(np.cumsum(count) - count, count):
        order += rng.sample(range(int(first), int(first) + c), c)
    n = sum(count)
    seed = [-1 if rng.random() < unknown else rng.randrange(4) for _ in range(n)]
    return count, order, seed, [rng.randrange(4) for _ in range(n)]


def rollouts(count, order, seed, replicate) -> SideRollouts:
    return SideRollouts([None] * len(seed), np.array(count, dtype=np.int64), np.array(order, dtype=np.int64),
                        np.array(seed, dtype=np.int64), np.array(replicate, dtype=np.int64))


def tally(pairs: list[tuple[int, tuple, tuple]], rank: list[int]) -> list[tuple]:
    """(task, a, b) pairs of rollouts -> one (task, agreement, bucket of a, n) per distinct (task, a, b),
    ordered by `rank` (a sort key per pair, its first pair's)"""
    seen: dict[tuple, list] = {}
    for (task, a, b), key in zip(pairs, rank):
        if len(a) == len(b) == 0:
            continue
        seen.setdefault((task, a, b), [key, 0])[1] += 1
    return [(task, Levenshtein.normalized_similarity(a, b), min(len(a), MAX_BUCKET), n)
            for (task, a, b), (_, n) in sorted(seen.items(), key=lambda item: item[1][0])]


def as_rows(scored) -> list[tuple]:
    return list(zip(scored.task.tolist(), scored.value.tolist(), scored.bucket.tolist(), scored.n.tolist()))


@pytest.mark.parametrize("unknown", [0.0, 0.3, 1.0])
def test_within_and_cross_pairs_are_the_pair_by_pair_definition(unknown):
    rng = random.Random(f"arrays {unknown}")
    for _ in range(300):
        tasks = rng.randrange(1, 6)
        source, target = side(rng, tasks, unknown), side(rng, tasks, unknown)
        alphabet = [tuple(rng.choices("xyz", k=rng.randrange(3))) for _ in range(rng.randrange(1, 5))]
        s_seq = [rng.choice(alphabet) for _ in source[2]]  # per rollout, in the order read
        t_seq = [rng.choice(alphabet) for _ in target[2]]
        sequences = Sequences()
        s_ids, t_ids = sequences.of(s_seq), sequences.of(t_seq)
        s, t = rollouts(*source), rollouts(*target)

        # within: i < j in within order; a distinct pair ranked by its first later rollout, then
        # by where its earlier sequence first occurs
        pairs, rank = [], []
        for task, (first, c) in enumerate(zip(s.start.tolist(), source[0])):
            ordered = [s_seq[r] for r in source[1][first:first + c]]
            for j in range(c):
                for i in range(j):
                    pairs.append((task, ordered[i], ordered[j]))
                    rank.append((task, j, ordered.index(ordered[i])))
        w = within(sequences, s, s_ids)
        assert as_rows(w.pairs) == tally(pairs, rank)
        assert w.pairs.empty == sum(len(a) == len(b) == 0 for _, a, b in pairs)

        # cross: every (source, target) rollout of a task whose seeds differ (trial indices where
        # a seed is unknown), ranked by where each sequence first occurs in its side, source first
        pairs, rank = [], []
        for task in range(tasks):
            sa, ta = int(s.start[task]), int(t.start[task])
            s_rows, t_rows = range(sa, sa + source[0][task]), range(ta, ta + target[0][task])
            for a in s_rows:
                for b in t_rows:
                    known = source[2][a] >= 0 and target[2][b] >= 0
                    if (source[2][a] != target[2][b]) if known else (source[3][a] != target[3][b]):
                        pairs.append((task, s_seq[a], t_seq[b]))
                        rank.append((task, [s_seq[r] for r in s_rows].index(s_seq[a]),
                                     [t_seq[r] for r in t_rows].index(t_seq[b])))
        c = cross(sequences, s, s_ids, t, t_ids)
        assert as_rows(c) == tally(pairs, rank)
        assert c.empty == sum(len(a) == len(b) == 0 for _, a, b in pairs)


def test_a_task_run_thousands_of_times_is_tallied_by_distinct_routes():
    """2,000 trials of one task on each side, routes A and B alternating, trial r's seed r: the
    1,999,000 within pairs and 3,998,000 cross-seed pairs come out as four distinct pairs each,
    with the counts of the formulas, in the definition's order."""
    trials, half = 2000, 1000
    sequences = Sequences()
    ids = sequences.of([("a",) if r % 2 == 0 else ("a", "b") for r in range(trials)])
    s = rollouts([trials], list(range(trials)), list(range(trials)), list(range(trials)))
    w = within(sequences, s, ids)
    # (A, B) first at j=1: 1+2+...+1000; (A, A), then (B, A), first at j=2; (B, B) at j=3
    assert w.pairs.n.tolist() == [half * (half + 1) // 2, half * (half - 1) // 2, half * (half - 1) // 2,
                                  half * (half - 1) // 2]
    assert w.pairs.value.tolist() == [0.5, 1.0, 0.5, 1.0] and int(w.count[0]) == trials * (trials - 1) // 2
    c = cross(sequences, s, ids, s, ids)
    # (A, A), (A, B), (B, A), (B, B): every pair of rollouts but the 1,000 of one seed in each of A-A, B-B
    assert c.n.tolist() == [half * half - half, half * half, half * half, half * half - half]
