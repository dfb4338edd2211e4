"""What a simulation cost: the agent's, the customer's and the judge's money and tokens.

tau2 records each simulation's `agent_cost` and `user_cost` (litellm's price of every call) and
each message's `usage` (prompt and completion tokens: the agent's on assistant messages, the
customer's on user messages).  `of_simulation(sim)` reads them into a trace's `usage`; jtau adds the
NL-assertion judge's where it called the judge (the experiment's `jtau.judge_usage`).  A cost tau2
did not record (None: a model litellm has no price for) is left out, not counted as 0, and the
report says how many simulations had it.
"""

from __future__ import annotations

from collections import Counter

ROLES = {"assistant": "agent", "user": "customer"}
KEYS = ("agent_cost", "customer_cost", "judge_cost", "agent_prompt_tokens", "agent_completion_tokens",
        "customer_prompt_tokens", "customer_completion_tokens", "judge_prompt_tokens", "judge_completion_tokens")


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


def of_simulation(sim: dict, judge: dict | None = None) -> dict | None:
    """The usage of one tau2 simulation (and of its judge), or None when it records none."""
    usage: dict[str, float] = {}
    for key, name in (("agent_cost", "agent_cost"), ("user_cost", "customer_cost")):
        if (value := _number(sim.get(key))) is not None:
            usage[name] = value
    for message in sim.get("messages") or []:
        who = ROLES.get(message.get("role", "")) if isinstance(message, dict) else None
        tokens = message.get("usage") if who else None
        if isinstance(tokens, dict):
            for kind in ("prompt", "completion"):
                if (value := _number(tokens.get(f"{kind}_tokens"))) is not None:
                    usage[f"{who}_{kind}_tokens"] = usage.get(f"{who}_{kind}_tokens", 0) + value
    for key, value in (judge or {}).items():
        if key in KEYS and (value := _number(value)) is not None:
            usage[key] = value
    return usage or None


def total(usages: list[dict]) -> dict:
    """The sums of a side's usages, with how many simulations recorded each cost."""
    sums: Counter = Counter()
    recorded: Counter = Counter()
    for usage in usages:
        for key, value in usage.items():
            sums[key] += value
            recorded[key] += 1
    costs = [key for key in ("agent_cost", "customer_cost", "judge_cost") if recorded[key]]
    out: dict[str, float | dict[str, int] | None] = {
        key: round(sums[key], 6) if key.endswith("_cost") else int(sums[key]) for key in KEYS if recorded[key]}
    out["simulations"] = len(usages)
    out["cost_recorded"] = {key: recorded[key] for key in costs}
    total_cost = round(sum(sums[key] for key in costs), 6) if costs else None
    out["total_cost"] = total_cost
    out["cost_per_simulation"] = round(total_cost / len(usages), 6) if total_cost is not None and usages else None
    return out
