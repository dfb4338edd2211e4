"""Calibration: an experiment with the scripted models (scripted.py) whose numbers are known
before it runs.  With no deviation planted, every side must score reward 1.000 and every cell
retain exactly 1.000 at both levels with no failure; a planted deviation must come back as
exactly what was planted (the tests and CI check both: tests/experiment/test_experiment.py).  Retention
needs English and another arm and two trials; with one arm or one trial there is no pair to
compare, and each side's rewards and failures are checked (a scripted run of one arm)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jtau.arms import arm_domain
from jtau.experiment.plan import Plan
from jtau.experiment.scripted import AGENT, CUSTOMER, JUDGE, Deviation, ScriptedServer, scenario_texts
from jtau.retention.cell import Cell
from jtau.retention.study import study
from jtau.runtime.compat import is_tau3, runtime_name

KEY_ENV = "JTAU_SCRIPTED_KEY"  # the scripted server takes any key; the openai client needs one


def calibration_tasks(domain: str, count: int, routes: bool = True) -> list[str]:
    """The first `count` tasks of a domain's base split that a scripted customer can tell apart
    (its scenario text is no earlier task's: telecom's repeat across initial states) and, where
    `routes` are compared, in which the agent calls a tool (a task where only the customer acts
    has no route to compare)."""
    from jtau.runtime.registration import tasks_of
    from jtau.runtime.tau2_entry import register, tau2_tasks

    register()
    name = arm_domain(domain, "ja")
    base = {str(t.id) for t in tau2_tasks(name)}
    chosen, seen = [], set()
    for task in tasks_of(name):
        scenario = tuple(scenario_texts(task))
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        if str(task["id"]) not in base or scenario in seen or routes and not any(
                a.get("requestor", "assistant") == "assistant" for a in actions):
            continue
        seen.add(scenario)
        chosen.append(str(task["id"]))
        if len(chosen) == count:
            break
    return chosen


def scripted_plan(domains: list[str], arms: list[str], users: list[str], trials: int = 2,
                  task_ids: list[str] | dict | None = None, num_tasks: int | None = None, seed: int = 300,
                  retrieval_config: str | None = None, judge: str = JUDGE, url: str = "") -> Plan:
    """The plan of a calibration: the scripted agent and customer (and judge, on tau2-bench 1.0.1)
    behind `url`; the address is the only llm arg (the server takes any key)."""
    args = {"api_base": url, "temperature": 0.0}
    os.environ.setdefault(KEY_ENV, "scripted")
    return Plan(domains=domains, arms=arms, users=users, agent_llm=f"openai/{AGENT}", agent_llm_args=args,
                user_llm=f"openai/{CUSTOMER}", user_llm_args=dict(args), agent_key_env=KEY_ENV, user_key_env=KEY_ENV,
                judge_key_env=KEY_ENV if is_tau3() else None,
                judge_llm=f"openai/{judge}" if is_tau3() else None, judge_llm_args=dict(args) if is_tau3() else None,
                trials=trials, seed=seed, task_ids=task_ids, num_tasks=num_tasks,
                retrieval_config=retrieval_config, runtime=runtime_name())


@dataclass
class Calibration:
    folder: Path
    results: list[Cell]       # the analysis' cells (none without a pair to compare)
    problems: list[str]
    server_errors: list[str]
    sides: list[dict] = field(default_factory=list)  # each side's rewards and failures, without a pair


def compares_pairs(arms: list[str], trials: int) -> bool:
    """Whether a calibration has retention to check: English and another arm, two trials or more."""
    return "en" in arms and len(arms) > 1 and trials > 1


def scripted_server(domains: Iterable[str], arms: Iterable[str] = ("en", "ja"),
                    deviations: Iterable[Deviation] = (), task_ids: list[str] | dict | None = None,
                    num_tasks: int | None = None) -> ScriptedServer:
    """A server that knows the tasks of the arms an experiment meets: its own, and the English
    twin whose scenario the English-prompted customer reads (ja-entities for ja, en for ja-text)."""
    from jtau.retention.canonical import rules_of
    from jtau.runtime.registration import tasks_of
    from jtau.runtime.tau2_entry import register, tau2_tasks
    from jtau.runtime.user import EN_PROMPT_DIRECTIVE

    register()
    twins = {"ja": "ja-entities", "ja-text": "en"}
    names = {arm_domain(d, a) for d in domains for arm in arms for a in (arm, twins.get(arm, arm))}
    def wanted(domain: str) -> set[str]:
        return set((task_ids.get(domain) if isinstance(task_ids, dict) else task_ids) or ())

    ids = {str(t.id) for d in domains for t in tau2_tasks(arm_domain(d, "ja"), None, None if wanted(d) else num_tasks)
           if not wanted(d) or str(t.id) in wanted(d)}
    return ScriptedServer(sorted(names), tasks_of, deviations, EN_PROMPT_DIRECTIVE, rules_of, ids)


def calibrate(folder: Path, domains: list[str], arms: list[str], users: list[str], trials: int = 2,
              task_ids: list[str] | dict[str, list[str]] | None = None, num_tasks: int | None = None,
              deviations: Iterable[Deviation] = (), retrieval_config: str | None = None, concurrency: int = 4,
              on_progress: Callable | None = None, bootstrap: int = 200, judge: str = JUDGE) -> Calibration:
    """Run a scripted experiment into `folder` and analyse it; `problems` lists every number that
    is not what a perfect agent gives (meaningful without deviations)."""
    from jtau.experiment.load import experiment_traces
    from jtau.experiment.runner import run_experiment

    if task_ids is None and num_tasks is not None:
        task_ids = {d: calibration_tasks(d, num_tasks, compares_pairs(arms, trials)) for d in domains}
        num_tasks = None
    with scripted_server(domains, arms, deviations, task_ids, num_tasks) as server:
        plan = scripted_plan(domains, arms, users, trials, task_ids, num_tasks, retrieval_config=retrieval_config,
                             judge=judge, url=server.url)
        run_experiment(folder, plan, concurrency, max_retries=0, on_progress=on_progress)
        errors = list(dict.fromkeys(server.errors))
    _, traces = experiment_traces(folder)
    sides = side_results(traces)
    if not compares_pairs(arms, trials):  # one arm or one trial: each side's rewards and failures
        return Calibration(folder, [], exactness_problems([], sides), errors, sides)
    results = study(traces, "en", permutations=200, bootstrap=bootstrap, details=True).cells
    return Calibration(folder, results, exactness_problems(results), errors, sides)


def side_results(traces) -> list[dict]:
    """Per side (benchmark, arm, customer): simulations, their mean reward, failures (a
    simulation that did not run to its end, by reason)."""
    from collections import Counter

    sides: dict[tuple, dict] = {}
    for trace in traces:
        side = sides.setdefault((trace.benchmark, trace.language, trace.user or ""), {
            "benchmark": trace.benchmark, "arm": trace.language, "user": trace.user, "simulations": 0,
            "rewards": [], "failures": Counter()})
        side["simulations"] += 1
        if trace.failure is not None:
            side["failures"][trace.failure] += 1
        else:
            side["rewards"].append(trace.reward)
    out = []
    for side in sides.values():
        rewards = side.pop("rewards")
        scored = [r for r in rewards if r is not None]
        out.append({**side, "failures": dict(side["failures"]), "scored": len(scored),
                    "reward": sum(scored) / len(scored) if scored else None, "unscored": len(rewards) - len(scored)})
    return out


def exactness_problems(results: list[Cell], sides: list[dict] | None = None) -> list[str]:
    """What keeps a perfect agent's experiment from exact: a reward below 1, a failure, a
    retention or a share that is not 1.  With `sides` (no pair to compare: one arm or one
    trial), each side's rewards and failures."""
    from jtau.retention.analysis import cell_name

    if sides is not None:
        problems = [] if sides else ["no simulation: the experiment ran nothing"]
        for side in sides:
            name = " ".join(str(part) for part in (side["benchmark"], side["arm"], side["user"]) if part)
            if side["failures"]:
                problems.append(f"{name}: {sum(side['failures'].values())} failed simulations {side['failures']}")
            if side["unscored"]:
                problems.append(f"{name}: {side['unscored']} simulations without a reward")
            if side["scored"] and side["reward"] != 1.0:
                problems.append(f"{name}: reward {side['reward']} over {side['scored']} simulations")
        return problems
    problems = [] if results else ["no cell: the experiment has no English side and J-tau side to compare"]
    for cell in results:
        name = cell_name(cell)
        for label, reward in cell["reward"].items():
            if reward["mean"] != 1.0:
                problems.append(f"{name}: reward {label} {reward['mean']}")
        if cell["failures"]:
            problems.append(f"{name}: {cell['failures']} failed simulations {cell['failures_by_language']}")
        for level, numbers in cell["levels"].items():
            if numbers["tasks"] == 0 and numbers["empty_pairs_excluded"]:
                continue  # every route empty (the agent calls nothing in these tasks): no retention to check
            if numbers["retention"] != 1.0:
                problems.append(f"{name}: retention ({level}) {numbers['retention']}")
        if cell["answer_vs_action"]["same_reward_different_route"]:
            problems.append(f"{name}: answer vs action {cell['answer_vs_action']['task_ids']}")
    return problems
