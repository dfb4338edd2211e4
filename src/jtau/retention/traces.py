"""Trace files: JSON Lines, one rollout a line.

    {"model": str, "benchmark": str, "language": str, "temperature": float, "replicate": int,
     "task_id": str, "parsed": bool, "actions": [{"tool": str, "args": {}}], "thoughts": str (optional)}

`parsed: false` means the rollout produced no parseable trace (its `actions` are empty); it
counts toward the cell's parse-failure rate and takes part in no comparison.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from jtau.errors import InputError

# A tool whose name says it translates: the English-pivot signal (analysis per cell, summary per language).
TRANSLATE = re.compile(r"translat", re.IGNORECASE)

FIELDS = ("model", "benchmark", "language", "temperature", "replicate", "task_id", "parsed", "actions")


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

    def to_json(self) -> bytes:
        data = {name: getattr(self, name) for name in FIELDS}
        if self.thoughts is not None:
            data["thoughts"] = self.thoughts
        return orjson.dumps(data)


def _check(data, where: str) -> Trace:
    if not isinstance(data, dict):
        raise InputError(f"{where}: a trace must be a JSON object")
    missing = [name for name in FIELDS if name not in data]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(
            isinstance(a, dict) and isinstance(a.get("tool"), str) and isinstance(a.get("args", {}), dict)
            for a in actions):
        raise InputError(f"{where}: actions must be a list of {{\"tool\": str, \"args\": {{}}}}")
    if not data["parsed"] and actions:
        raise InputError(f"{where}: an unparsed rollout has no actions")
    try:
        return Trace(str(data["model"]), str(data["benchmark"]), str(data["language"]),
                     float(data["temperature"]), int(data["replicate"]), str(data["task_id"]),
                     bool(data["parsed"]), actions,
                     str(data["thoughts"]) if data.get("thoughts") is not None else None)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {exc}") from None


def read_traces(paths: Iterable[Path]) -> Iterator[Trace]:
    for path in paths:
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror}") from None
        with handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    data = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: invalid JSON: {exc}") from None
                yield _check(data, f"{path}:{number}")


def write_traces(path: Path, traces: Iterable[Trace]) -> int:
    from jtau.write import atomic_write

    lines = [trace.to_json() for trace in traces]
    atomic_write(path, b"".join(line + b"\n" for line in lines))
    return len(lines)
