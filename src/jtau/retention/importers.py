"""Turn rollouts into traces.

tau2 results (the JSON `tau2 run` writes): every simulation becomes a trace; its actions are
the assistant's tool calls in order.  Model and temperature come from the run's agent info,
the benchmark from the domain name (`airline_ja` is benchmark `airline` in language `ja`),
the replicate from the trial number.

ReAct transcripts (JSON Lines with the trace metadata and a `transcript` text): actions are
read from `Action:` lines, tolerating the usual variations -- `**Action:**`, `Action 2:`,
`action:`, `Action: Tool[...]` or `Tool(...)`, an `Action Input:` line with JSON or
`key=value` pairs, code fences.  `Finish` (as an action or `Finish[...]`) ends the trace.  A
transcript with neither an action nor a Finish is unparseable: it is counted (`parsed:
false`), never turned into an empty trace that would agree with everything.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from jtau.errors import InputError
from jtau.retention.traces import Trace


def _load(path: Path):
    try:
        return orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON: {exc}") from None


def from_tau2_results(path: Path, source_language: str = "en", target_language: str = "ja",
                      model: str | None = None, temperature: float | None = None) -> list[Trace]:
    """Every simulation of a tau2 results file as a trace.  The agent's temperature must be
    known (results are always quoted with their temperature): from the file's
    info.agent_info.llm_args.temperature, or given; a file without it is refused."""
    data = _load(path)
    try:
        info, simulations = data["info"], data["simulations"]
        agent = info.get("agent_info") or {}
        domain = info["environment_info"]["domain_name"]
    except (KeyError, TypeError):
        raise InputError(f"{path}: not a tau2 results file (needs info.environment_info and simulations)") from None
    suffix = f"_{target_language}"
    language = target_language if domain.endswith(suffix) else source_language
    recorded = (agent.get("llm_args") or {}).get("temperature")
    if temperature is None:
        if recorded is None:
            raise InputError(f"{path}: info.agent_info.llm_args.temperature: the agent's temperature is not recorded; "
                             "give it with --temperature T (retention is always quoted with its temperature)")
        temperature = float(recorded)
    traces = []
    for index, sim in enumerate(simulations):
        actions = []
        for message in sim.get("messages") or []:
            if message.get("role") != "assistant":
                continue
            for call in message.get("tool_calls") or []:
                actions.append({"tool": call["name"], "args": call.get("arguments") or {}})
        traces.append(Trace(model or agent.get("llm") or "unknown", domain, language, temperature,
                            int(sim.get("trial") if sim.get("trial") is not None else index),
                            str(sim["task_id"]), True, actions))
    return traces


ACTION = re.compile(
    r"^\W*action(?:\s*\d+)?\W*:\W*(?P<tool>[A-Za-z_][\w.-]*)\s*(?P<inline>[\[(].*)?$", re.IGNORECASE)
INPUT = re.compile(r"^\W*action[ _]input(?:\s*\d+)?\W*:\s*(?P<args>.*)$", re.IGNORECASE)
FINISH = re.compile(r"^\W*(?:action\W*:\W*)?finish\b", re.IGNORECASE)
KEY_VALUE = re.compile(r"(\w+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,\])]+)")


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


def from_react(path: Path) -> tuple[list[Trace], int]:
    """Traces of a JSON Lines file of ReAct transcripts, and how many were unparseable."""
    traces, failed = [], 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                item = orjson.loads(line)
                meta = (item["model"], item["benchmark"], item["language"], float(item["temperature"]),
                        int(item["replicate"]), str(item["task_id"]))
                transcript = item["transcript"]
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                raise InputError(f"{path}:{number}: expected model, benchmark, language, temperature, "
                                 "replicate, task_id and transcript") from None
            actions = parse_react(transcript if isinstance(transcript, str) else "")
            if actions is None:
                failed += 1
            traces.append(Trace(*meta, actions is not None, actions or []))
    return traces, failed
