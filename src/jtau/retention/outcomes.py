"""Beside retention, what a reader needs to trust it: the answers (tau2's reward), where answers
and actions disagree, each task's two routes, and the diagnostics of each side.

- `reward`: per side, the mean of tau2's reward over the simulations that ran (a simulation that
  ended in an infrastructure error has no reward and is left out, as tau2's own metrics do; an
  agent's or a user simulator's protocol error keeps the reward tau2 gave it), and pass^k for
  every k up to the smallest number of trials of a task: the mean over tasks of C(c, k) / C(n, k)
  with c of n trials successful (reward 1, tau2's `is_successful`).
- `reward_differs`: the tasks whose mean reward differs between the sides.
- `answer_vs_action`: of the tasks compared at the route level that have rewards on both sides,
  how many have the same mean reward but a different route (their cross-language agreement below
  their agreement within a language): the answer agrees, the action does not.
- `tasks`: per task, its rewards, Icross and Iwithin at both levels, each side's route (the steps
  of its first completed trial) and the first step where the two routes part.
- `diagnostics`: per side, diagnostics.py's counts summed over its rollouts.
"""

from __future__ import annotations

from math import comb

import numpy as np

TOLERANCE = 1e-6


def successful(reward: float) -> bool:
    return abs(reward - 1.0) <= TOLERANCE


def pass_hat_k(rewards_by_task: dict[str, list[float]]) -> dict[str, float]:
    tasks = [(sum(map(successful, r)), len(r)) for r in rewards_by_task.values() if r]  # (c, n) per task
    if not tasks:
        return {}
    out = {}
    for k in range(1, min(n for _, n in tasks) + 1):
        # C(c, k) / C(n, k), each exact integer computed only where it is not plainly 0 or 1
        values = [0.0 if c < k else 1.0 if c == n else comb(c, k) / comb(n, k) for c, n in tasks]
        out[str(k)] = float(np.mean(values))
    return out


def reward_numbers(rewards_by_task: dict[str, list[float]]) -> dict:
    values = [v for r in rewards_by_task.values() for v in r]
    return {"mean": float(np.mean(values)) if values else None, "simulations": len(values),
            "tasks": sum(bool(r) for r in rewards_by_task.values()), "pass_hat_k": pass_hat_k(rewards_by_task)}


def parted_at(a: list[str], b: list[str]) -> int | None:
    """The first index where two routes differ (a route that is a prefix of the other parts at
    its end); None when they are the same."""
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


def diagnostic_sums(entries: list) -> dict:
    keys = ("turns", "first_turn_stop", "agent_messages", "agent_japanese", "user_messages", "user_japanese",
            "name_order_errors", "parameter_language_errors")
    sums = {key: 0 for key in keys}
    judge_flagged, conversations = [], 0
    for task_id, counts in entries:
        conversations += 1
        for key in keys:
            sums[key] += int(counts.get(key) or 0)
        if "judge_expected" in counts and (counts.get("judge_verdicts") != counts["judge_expected"]
                                           or counts.get("judge_empty")):
            judge_flagged.append(task_id)
    return {
        "conversations": conversations,
        "first_turn_stops": sums["first_turn_stop"],
        "turns_mean": sums["turns"] / conversations if conversations else None,
        "agent_japanese_share": sums["agent_japanese"] / sums["agent_messages"] if sums["agent_messages"] else None,
        "user_japanese_share": sums["user_japanese"] / sums["user_messages"] if sums["user_messages"] else None,
        "agent_messages": sums["agent_messages"], "user_messages": sums["user_messages"],
        "name_order_errors": sums["name_order_errors"],
        "parameter_language_errors": sums["parameter_language_errors"],
        "judge_guard": len(judge_flagged),  # conversations flagged
        "judge_guard_tasks": sorted(set(judge_flagged), key=_task_order),
    }


def _task_order(task_id: str):
    return (0, int(task_id), "") if task_id.isdigit() else (1, 0, task_id)


def outcomes(g, source, target, labels: dict, pairs: dict) -> dict:
    """The details of one cell (see the module docstring); `pairs` is the analysis' per-level Pairs."""
    rewards = {labels[side]: reward_numbers(g.rewards[side]) for side in (source, target)}
    mean_reward = {side: {t: float(np.mean(r)) for t, r in g.rewards[side].items() if r} for side in (source, target)}
    both = sorted(set(mean_reward[source]) & set(mean_reward[target]), key=_task_order)
    differs = [t for t in both if abs(mean_reward[source][t] - mean_reward[target][t]) > TOLERANCE]
    route = pairs["route"]
    compared = [t for t in both if t in route.cross_by_task]
    answer_only = [t for t in compared if t not in differs
                   and route.cross_by_task[t] < route.within_by_task[t] - TOLERANCE]
    tasks = []
    for task_id in sorted(g.tasks, key=_task_order):
        steps = {labels[side]: g.actions[side].get(task_id) for side in (source, target)}
        a, b = steps[labels[source]], steps[labels[target]]
        tasks.append({
            "task_id": task_id,
            "reward": {labels[side]: mean_reward[side].get(task_id) for side in (source, target)},
            "icross": {level: pairs[level].cross_by_task.get(task_id) for level in pairs},
            "iwithin": {level: pairs[level].within_by_task.get(task_id) for level in pairs},
            "route": steps,
            "parted_at": parted_at(a, b) if a is not None and b is not None else None,
        })
    return {
        "reward": rewards,
        "reward_differs": differs,
        "answer_vs_action": {"tasks": len(compared), "same_reward_different_route": len(answer_only),
                             "share": len(answer_only) / len(compared) if compared else None,
                             "task_ids": answer_only},
        "tasks": tasks,
        "diagnostics": {labels[side]: diagnostic_sums(g.diagnostics[side]) for side in (source, target)},
    }
