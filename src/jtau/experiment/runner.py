"""`jtau experiment run`: every simulation of a plan through tau2's own per-task runner, one
file a simulation in the experiment folder, resumable.

    EXP/experiment.json                          the plan and where it ran (jtau, J-tau dataset
                                                 digests, tau2 runtime); never a key
    EXP/simulations/<tau2 domain>/<user>/<task>.<trial>.json
                                                 {"jtau": {..., "prompts": {role: [sha256]},
                                                  "judge_usage"}, "simulation": tau2's SimulationRun}
    EXP/prompts/<sha256>.txt                     each distinct system prompt shown (agent, customer,
                                                 judge), once (runtime/calls.py)

A simulation is written once it has ended, atomically; running the same plan in the same folder
again runs only what is missing (an interrupted experiment continues where it stopped), and a
different plan in that folder is refused.  A simulation whose run raised (a malformed tool call,
an endpoint that failed, on either runtime) is tried again `max_retries` times and then written
as a failure (`termination_reason: infrastructure_error`, with where it failed), never as an
empty conversation; the other simulations go on.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from jtau import __version__
from jtau.dataset_files import dataset_digest
from jtau.errors import InputError, error_name
from jtau.experiment.plan import Plan, Simulation
from jtau.retention.importers import FAILURES
from jtau.runtime import calls
from jtau.runtime.registration import check_shared_records
from jtau.runtime.simulate import Settings, redact_run_records, run_one
from jtau.util.files import atomic_write, create_once
from jtau.util.gcpause import freeze_loaded
from jtau.util.listing import joined
from jtau.util.secrets import scrub

MANIFEST = "experiment.json"
PROMPTS = "prompts"  # each distinct prompt a simulation was run with, once: <sha256>.txt
FORMAT = 1
# (runtime/calls.py wraps the models' calls: its frame is its caller's, not a place of its own)
FAILED_IN = (("/jtau/runtime/calls.py", None), ("/tau2/agent/", "agent"), ("/tau2/user/", "user simulator"),
             ("/jtau/runtime/user", "user simulator"), ("/tau2/evaluator/", "evaluation"),
             ("/tau2/environment/", "environment"), ("/tau2/domains/", "environment"),
             ("/jtau/runtime/", "environment"))


def dumps(data) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise InputError(f"{folder}: no experiment here (no {MANIFEST}); "
                         f"run: jtau experiment run --out {folder} ...") from None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read the experiment's manifest: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("plan"), dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a jtau experiment manifest (format {FORMAT})")
    return data


def first_difference(old: dict, new: dict) -> str:
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return f"{key}: {old.get(key)!r} there, {new.get(key)!r} now"
    return ""


def failed_in(tb) -> str:
    """Where a simulation's run raised: the deepest frame of the agent, the user simulator, the
    evaluator or the environment."""
    where = "run"
    for frame in traceback.extract_tb(tb):
        name = frame.filename.replace("\\", "/")
        for part, label in FAILED_IN:
            if part in name:
                where = label or where
                break
    return where


@dataclass
class Progress:
    total: int
    done: int = 0      # written before this run and by it
    ran: int = 0       # written by this run
    failed: int = 0    # of those, failures


class Runner:
    """Run a plan's simulations into a folder (`run()`), `concurrency` at a time."""

    def __init__(self, folder: Path, plan: Plan, concurrency: int = 4, max_retries: int = 3,
                 on_progress: Callable[[Progress], None] | None = None, shard: tuple[int, int] = (0, 1)):
        self.folder, self.plan, self.shard = folder, plan, shard
        self.concurrency, self.max_retries = max(1, concurrency), max(0, max_retries)
        self.on_progress = on_progress or (lambda progress: None)
        self.stop = threading.Event()

    # --- the folder ------------------------------------------------------------------------

    def open(self, datasets: dict) -> dict:
        """Create the experiment or check that the folder holds this plan (and these datasets).
        Created once: shards that start together on a shared file system write it once between
        them, and each checks the one that was written."""
        path = self.folder / MANIFEST
        if not path.exists():
            # the id is the plan's, so that shards written to separate folders are one run
            identity = orjson.dumps({"plan": self.plan.identity(), "datasets": datasets, "runtime": self.plan.runtime},
                                    option=orjson.OPT_SORT_KEYS)
            manifest: dict[str, Any] = {"format": FORMAT, "id": hashlib.sha256(identity).hexdigest()[:12],
                        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "jtau": __version__,
                        "runtime": self.plan.runtime, "plan": self.plan.identity(), "datasets": datasets}
            if create_once(path, dumps(manifest)):
                return manifest
        manifest = read_manifest(self.folder)
        if manifest["plan"] != self.plan.identity():
            difference = first_difference(manifest["plan"], self.plan.identity())
            raise InputError(f"{self.folder} holds another experiment ({difference}); "
                             "give another --out, or the same options to continue it")
        if manifest.get("datasets") != datasets or manifest.get("runtime") != self.plan.runtime:
            raise InputError(f"{self.folder}: its experiment ran on other J-tau data or another tau2 "
                             f"({manifest.get('runtime')}); run this one with another --out")
        return manifest

    def done(self, simulation: Simulation) -> bool:
        return (self.folder / simulation.file).is_file()

    def write(self, simulation: Simulation, record: dict, attempts: int, account=None) -> None:
        """A simulation's file; `account` (runtime/calls.py): the prompts it was run with, each kept
        once in prompts/<sha256>.txt, and its judge's cost and tokens (tau2 records neither)."""
        meta = {"domain": simulation.domain, "arm": simulation.arm, "user": simulation.user,
                "task_id": simulation.task_id, "trial": simulation.trial, "seed": simulation.seed,
                "attempts": attempts, "nl_assertions": simulation.nl_assertions}
        if account is not None and account.prompts:
            meta["prompts"] = account.prompts
            for digest, text in account.texts.items():
                kept = self.folder / PROMPTS / f"{digest}.txt"
                if not kept.is_file():
                    atomic_write(kept, text.encode("utf-8"))
        if account is not None and account.judge:
            meta["judge_usage"] = account.judge
        atomic_write(self.folder / simulation.file, dumps({"jtau": meta, "simulation": record}))

    # --- running ---------------------------------------------------------------------------

    def simulations(self, tasks: dict[str, list]) -> list[tuple[Simulation, object]]:
        """Every (simulation, tau2 task) of the plan, trial by trial; with a shard, its part."""
        out = []
        for trial, seed in enumerate(self.plan.seeds()):
            for domain, arm, user in self.plan.units():
                for task in tasks[domain]:
                    out.append((Simulation(domain, arm, user, str(task.id), trial, seed, judge_expected(task)), task))
        return shard_of(out, self.shard)

    def attempt(self, simulation: Simulation, task, settings) -> None:
        error: tuple[Exception, TracebackType | None, int] | None = None
        for attempt in range(1, self.max_retries + 2):
            if self.stop.is_set():
                return
            calls.start()
            try:
                record = run_one(simulation.domain, task, simulation.user, simulation.seed, settings)
            except Exception as exc:  # noqa: BLE001 - a simulation that raised is a failure, recorded
                calls.finish()
                error = (exc, exc.__traceback__, attempt)
                continue
            check_shared_records(simulation.domain)  # a broken contract stops the run, this result unkept
            self.write(simulation, record, attempt, calls.finish())
            return
        assert error is not None  # at least one attempt ran (max_retries >= 0), and each that did not return failed
        failure, tb, attempts = error
        self.write(simulation, {
            "id": f"{simulation.task_id}_{simulation.trial}_failed", "task_id": simulation.task_id,
            "termination_reason": "infrastructure_error", "messages": [], "trial": simulation.trial,
            "seed": simulation.seed, "reward_info": None,
            "info": {"error": scrub(str(failure))[:2000], "error_type": error_name(failure),
                     "failed_in": failed_in(tb), "attempts": attempts}}, attempts)

    def run(self, tasks: dict[str, list], settings, datasets: dict) -> Progress:
        """Run what the folder lacks; Ctrl-C stops starting simulations (KeyboardInterrupt is
        raised once the running ones are abandoned; what was written stays)."""
        self.open(datasets)
        planned = self.simulations(tasks)
        todo = [(s, t) for s, t in planned if not self.done(s)]
        progress = Progress(len(planned), len(planned) - len(todo))
        self.on_progress(progress)
        work: queue.Queue = queue.Queue()
        for item in todo:
            work.put(item)
        results: queue.Queue = queue.Queue()

        def worker():
            while not self.stop.is_set():
                try:
                    simulation, task = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    self.attempt(simulation, task, settings)
                    results.put(simulation)
                except BaseException as exc:  # noqa: BLE001 - e.g. the disk is full: stop the run
                    results.put(exc)
                    return

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(self.concurrency, len(todo)))]
        for thread in threads:
            thread.start()
        try:
            while progress.ran < len(todo):
                item = results.get(timeout=None if any(t.is_alive() for t in threads) else 0.1)
                if isinstance(item, BaseException):
                    self.stop.set()
                    raise item
                progress.ran += 1
                progress.done += 1
                if self.is_failure(item):
                    progress.failed += 1
                self.on_progress(progress)
        except KeyboardInterrupt:
            self.stop.set()
            raise
        return progress

    def is_failure(self, simulation: Simulation) -> bool:
        try:
            record = orjson.loads((self.folder / simulation.file).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return False
        return record.get("simulation", {}).get("termination_reason") in FAILURES


def shard_of(planned: list, shard: tuple[int, int]) -> list:
    """Shard K of N of the plan's simulations: every N-th in the order of their files, from the K-th.
    Every shard computes the same partition from the plan alone; the N shards hold each simulation
    once, and their sizes differ by one at most."""
    k, n = shard
    ordered = sorted(planned, key=lambda item: item[0].file)
    return ordered[k::n]


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` (0 <= K < N; Slurm's `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`)."""
    k, slash, n = text.partition("/")
    if not slash or not k.strip().isdigit() or not n.strip().isdigit() or not 0 <= int(k) < int(n):
        raise InputError(f"--shard {text!r}: K/N with 0 <= K < N (as $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)")
    return int(k), int(n)


def quiet_litellm() -> None:
    """litellm prints a feedback banner for every failed call; the experiment records failures."""
    import litellm

    litellm.suppress_debug_info = True


def judge_expected(task) -> int | None:
    """How many NL assertions grade a task (tau2-bench 1.0.1's NL_ASSERTION basis), else None."""
    criteria = getattr(task, "evaluation_criteria", None)
    basis = [str(getattr(b, "value", b)) for b in (getattr(criteria, "reward_basis", None) or [])]
    return len(criteria.nl_assertions or []) if criteria is not None and "NL_ASSERTION" in basis else None


def prepare(plan: Plan) -> tuple[dict[str, list], dict[str, str | None]]:
    """Register J-tau in tau2 and load every side's tasks: (tau2 domain -> tasks, tau2 domain ->
    J-tau dataset digest).  The sides of one domain run the same task ids."""
    from jtau.runtime.tau2_entry import dataset_folder, greet_in_domain_language, register, set_judge, tau2_tasks

    registered = set(register())
    greet_in_domain_language()
    redact_run_records()
    quiet_litellm()
    judge_args = dict(plan.judge_llm_args or {})
    if plan.judge_key_env and os.environ.get(plan.judge_key_env):
        judge_args["api_key"] = os.environ[plan.judge_key_env]
    judge_json = orjson.dumps(judge_args).decode() if judge_args or plan.judge_llm_args is not None else None
    set_judge(plan.judge_llm, judge_json)
    calls.watch()
    tasks: dict[str, list] = {}
    used: set[tuple[str, str]] = set()
    given = plan.task_ids
    for domain, _, _ in plan.units():
        if domain in tasks:
            continue
        if domain not in registered:
            raise InputError(f"{domain} is not a J-tau domain of this tau2 ({plan.runtime}); known: "
                             f"{', '.join(sorted(registered))}")
        base = domain.rpartition("_")[0]
        ids = given.get(base) if isinstance(given, dict) else given
        found = tau2_tasks(domain, None, None if ids else plan.num_tasks)
        if ids:  # each domain runs the given ids it has, in the order given
            by_id = {str(t.id): t for t in found}
            found = [by_id[i] for i in ids if i in by_id]
            used.update((base, str(t.id)) for t in found)
            if not found:
                raise InputError(f"{domain} has none of the given task ids")
        tasks[domain] = found
    if isinstance(given, dict):
        unknown = [f"{b} {i}" for b, ids in given.items() for i in ids if (b, i) not in used]
    else:
        unknown = [i for i in given or () if i not in {task for _, task in used}]
    if unknown:
        raise InputError(f"no domain of the plan has task {joined(unknown, 5)}")
    ids_of = {domain: [t.id for t in found] for domain, found in tasks.items()}
    by_base: dict[str, list] = {}
    for domain, _, _ in plan.units():
        by_base.setdefault(domain.rpartition("_")[0], []).append(domain)
    for base, sides in by_base.items():
        differ = [d for d in sides if ids_of[d] != ids_of[sides[0]]]
        if differ:
            raise InputError(f"{differ[0]} and {sides[0]} have different tasks: sides of {base} must run the same ids")
    return tasks, {domain: dataset_digest(folder) if (folder := dataset_folder(domain)) else None for domain in tasks}


def run_experiment(folder: Path, plan: Plan, concurrency: int = 4, max_retries: int = 3,
                   on_progress: Callable[[Progress], None] | None = None, shard: tuple[int, int] = (0, 1)) -> Progress:
    """Register, load, and run what the folder lacks (see the module docstring)."""
    tasks, datasets = prepare(plan)
    settings = Settings(plan.agent, plan.agent_llm, plan.agent_llm_args, plan.user_llm, plan.user_llm_args,
                        plan.max_steps, plan.max_errors, plan.retrieval_config, plan.agent_key_env, plan.user_key_env)
    runner = Runner(folder, plan, concurrency, max_retries, on_progress, shard)
    freeze_loaded()  # tau2, the registered domains and their tasks
    return runner.run(tasks, settings, datasets)
