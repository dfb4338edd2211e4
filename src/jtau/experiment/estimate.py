"""What a plan will run and, measured on an earlier experiment, what it will cost and take.

`jtau experiment run --dry-run` counts the plan's simulations per side (its tasks, as tau2 loads
them, times its trials) and writes nothing.  With `--like DIR` it projects cost and time from the
simulations of that earlier experiment: each side's mean cost per simulation (agent, customer and
judge, as recorded: retention/usage.py) and mean duration (tau2's `duration`), the earlier
experiment's mean over all its sides where it lacks one; time is the simulations' total duration
over `--concurrency`.  A projection says what it was measured on; it is no promise (providers'
prices and latency change).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from jtau.errors import InputError
from jtau.experiment.plan import Plan
from jtau.retention import usage


@dataclass
class Side:
    domain: str        # the tau2 domain (airline_ja)
    user: str
    tasks: int
    simulations: int
    cost: float | None = None      # projected, in dollars
    seconds: float | None = None   # projected total duration of its simulations


@dataclass
class Measured:
    cost: float | None     # mean cost of a simulation
    seconds: float | None  # mean duration of a simulation
    simulations: int


def count(plan: Plan, tasks: dict[str, list]) -> list[Side]:
    """Each side of the plan with its tasks and simulations (`tasks`: experiment.runner.prepare's)."""
    return [Side(domain, user, len(tasks[domain]), len(tasks[domain]) * plan.trials)
            for domain, _, user in plan.units()]


def measure(folder: Path) -> dict[tuple[str, str] | None, Measured]:
    """(tau2 domain, user) -> what a simulation of that side cost and took in the experiment of
    `folder`; None -> the same over all its sides."""
    files = sorted((folder / "simulations").glob("*/*/*.json"))
    if not files:
        raise InputError(f"--like {folder}: no simulation there to measure "
                         "(an experiment folder of jtau experiment run)")
    by_side: dict = {}
    for path in files:
        try:
            record = orjson.loads(path.read_bytes())
            meta, sim = record["jtau"], record["simulation"]
            side = (str(meta["domain"]), str(meta["user"]))
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}: not a simulation of a jtau experiment ({type(exc).__name__}: {exc})") from None
        spent = usage.of_simulation(sim, meta.get("judge_usage")) or {}
        costs = [spent[k] for k in ("agent_cost", "customer_cost", "judge_cost") if k in spent]
        duration = sim.get("duration")
        for key in (side, None):
            entry = by_side.setdefault(key, [[], [], 0])
            if costs:
                entry[0].append(sum(costs))
            if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
                entry[1].append(float(duration))
            entry[2] += 1
    return {key: Measured(sum(c) / len(c) if c else None, sum(d) / len(d) if d else None, n)
            for key, (c, d, n) in by_side.items()}


def project(sides: list[Side], measured: dict) -> None:
    """Fill each side's projected cost and duration from `measured` (its side's, else the mean)."""
    for side in sides:
        m = measured.get((side.domain, side.user)) or measured[None]
        side.cost = None if m.cost is None else m.cost * side.simulations
        side.seconds = None if m.seconds is None else m.seconds * side.simulations
