"""The retention inputs as fuzz kinds: tau2 results and ReAct transcripts (`jtau retention import`)
and trace files (`jtau retention analyze`), with the command-line values of both.

The seeds are real: `jtau tau2 run` of the scripted perfect agent (jtau.experiment.scripted) on
airline_en and airline_ja, 2 tasks x 2 trials, as the installed tau2 writes them (26.3: `X.json`;
1.0.1: `X/results.json`), run once a process into a temporary folder; the traces are what
`retention import` wrote from them; the transcripts are those traces written out as ReAct text.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from . import mutate
from .harness import ANY, CHECKS, REFUSE, SAME, Case, invoke
from .kinds import Kind, register

SIDES = (("airline_en", "user_simulator"), ("airline_ja", "user_simulator_ja"))
TASKS = ("1", "2")  # the first airline tasks in which the agent calls a tool (calibration_tasks)
TRIALS = 2  # two replicates a side: `retention analyze` has pairs to compare


@functools.cache
def runs() -> Path:
    """A folder holding the real results of `jtau tau2 run` of the scripted agent, one run a side
    (each in a forked child of this warmed-up process, both at once), and `traces.jsonl`, what
    `retention import` wrote from them; removed at exit."""
    from jtau.experiment.calibrate import scripted_server
    from jtau.experiment.scripted import AGENT, CUSTOMER, JUDGE
    from jtau.runtime.compat import is_tau3, results_file

    folder = Path(tempfile.mkdtemp(prefix="jtau-fuzz-runs-"))
    atexit.register(shutil.rmtree, folder, True)  # (the forked children leave by os._exit: never theirs)
    with scripted_server(["airline"], ["en", "ja"], task_ids=list(TASKS)) as server:
        args = json.dumps(server.args())
        children = {}
        for domain, user in SIDES:
            argv = ["tau2", "run", "--domain", domain, "--user", user, "--agent-llm", f"openai/{AGENT}",
                    "--user-llm", f"openai/{CUSTOMER}", "--agent-llm-args", args, "--user-llm-args", args,
                    "--num-trials", str(TRIALS), "--max-concurrency", "4", "--save-to", str(folder / domain),
                    "--task-ids", *TASKS,
                    *(["--nl-assertions-llm", f"openai/{JUDGE}", "--nl-assertions-llm-args", args]
                      if is_tau3() else [])]
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.environ.setdefault("OPENAI_API_KEY", "scripted")
                with open(folder / f"{domain}.log", "w") as log:
                    code, out, err, tb = invoke(argv)
                    log.write(f"exit {code}\n{out}\n{err}\n{tb}")
                os._exit(0 if code == 0 else 1)
            children[domain] = pid
        failed = [domain for domain, pid in children.items() if os.waitpid(pid, 0)[1] != 0]
    results = [results_file(folder / domain) for domain, _ in SIDES]
    imperfect = [f"{r.name} {s['task_id']}/{s['trial']}: {s['termination_reason']} {s['reward_info']}"
                 for r in results if r.is_file() for s in json.loads(r.read_bytes())["simulations"]
                 if s["termination_reason"] not in ("user_stop", "agent_stop") or s["reward_info"]["reward"] != 1]
    if failed or server.errors or imperfect:  # the perfect agent scores 1 wherever it runs to the end
        logs = "\n".join((folder / f"{d}.log").read_text()[-2000:] for d in failed)
        raise RuntimeError(f"the scripted tau2 runs failed: {failed} {server.errors[:3]} {imperfect[:3]}\n{logs}")
    code, out, err, tb = invoke(["retention", "import", *(a for r in results for a in ("--tau2", str(r))),
                                 "-o", str(folder / "traces.jsonl")])
    if code != 0:
        raise RuntimeError(f"retention import of the scripted runs failed: {code} {err} {tb}")
    return folder


def is_tau3() -> bool:
    from jtau.runtime.compat import is_tau3

    return is_tau3()


@functools.cache
def results_seeds() -> dict[str, bytes]:
    """Side (`airline_en`, `airline_ja`) -> the bytes of its real results file."""
    from jtau.runtime.compat import results_file

    return {domain: results_file(runs() / domain).read_bytes() for domain, _ in SIDES}


@functools.cache
def trace_seed() -> bytes:
    """The traces `retention import` wrote, in a stable order (tau2 writes the simulations in the
    order they ended)."""
    return b"".join(sorted((runs() / "traces.jsonl").read_bytes().splitlines(keepends=True),
                           key=lambda line: [json.loads(line)[k] for k in ("language", "task_id", "replicate")]))


def results_name(domain: str) -> str:
    """Where a side's results file lies in the sandbox, as the installed tau2 names it."""
    return f"run/{domain}/results.json" if is_tau3() else f"run/{domain}.json"


# --- ReAct transcripts: the traces written out as ReAct text ---------------------------------

STYLES = ("Action: {tool}\nAction Input: {args}", "**Action:** {tool}[{args}]", "Action {n}: {tool}({args})",
          "action: {tool}\n```\naction_input: {args}\n```")


def transcript(actions: list[dict]) -> str:
    """A ReAct transcript whose `Action:` lines are `actions`, in the usual variations, and a Finish."""
    lines = ["Thought: I read what the customer needs."]
    for n, action in enumerate(actions, 1):
        args = json.dumps(action["args"], ensure_ascii=False)
        lines += [STYLES[n % len(STYLES)].format(tool=action["tool"], args=args, n=n),
                  f"Observation: {{\"status\": \"ok\", \"step\": {n}}}", "Thought: on to the next step."]
    return "\n".join([*lines, "Finish[done]"])


@functools.cache
def react_seed() -> bytes:
    """JSON Lines of ReAct transcripts: one per trace of the real runs (parsed back to the same
    actions), one that only finishes, one without an action (unparseable: counted)."""
    from jtau.retention.importers import parse_react

    items = []
    for line in trace_seed().splitlines():
        trace = json.loads(line)
        text = transcript(trace["actions"])
        assert parse_react(text) == trace["actions"], text
        items.append({key: trace[key] for key in ("model", "benchmark", "language", "temperature", "replicate",
                                                   "task_id")} | {"transcript": text})
    items.append({**items[0], "task_id": "0", "transcript": "Thought: nothing to do.\nFinish[no action needed]"})
    items.append({**items[0], "task_id": "3", "transcript": "I would look up the reservation first."})
    return b"".join(json.dumps(item, ensure_ascii=False).encode() + b"\n" for item in items)


# --- what a case may end in ---------------------------------------------------------------

def json_value(data: bytes) -> bool:
    """Whether `data` is one JSON value as jtau's reader (orjson) takes it: a file that is not
    must be refused, whatever else the mutation did."""
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def json_lines(data: bytes) -> bool:
    """Whether every line of `data` that is not blank is a JSON value."""
    return all(json_value(line) for line in data.split(b"\n") if line.strip())


def _baseline(argv: tuple[str, ...], files: tuple[tuple[str, bytes], ...],
              outputs: tuple[str, ...]) -> dict[str, bytes]:
    """The outputs `jtau ARGV` writes from the unmutated `files` (sandbox path -> bytes), run
    here in a folder of its own ({S} in the arguments)."""
    from .harness import _prepare

    folder = Path(tempfile.mkdtemp(prefix="jtau-fuzz-baseline-"))
    try:
        argv_here = _prepare(Case(kind="baseline", argv=list(argv), files=dict(files)), folder)
        code, out, err, tb = invoke(argv_here)
        if code != 0:
            raise RuntimeError(f"jtau {' '.join(argv)} on the unmutated input: exit {code} {err[-1000:]} {tb[-2000:]}")
        return {name: (folder / name).read_bytes() for name in outputs}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


baseline = functools.cache(_baseline)


# --- tau2 results -------------------------------------------------------------------------

def _calls(data) -> list[tuple[int, int, int]]:
    """(simulation, message, call) of every tool call of the agent."""
    return [(s, m, c) for s, sim in enumerate(data["simulations"]) for m, message in enumerate(sim["messages"])
            if message.get("role") == "assistant" for c, _ in enumerate(message.get("tool_calls") or [])]


WRONG_TYPES = ["x", 1, 1.5, True, None, [], {}]
DEEP_ARGS = {"a": "@@deep"}  # replaced by 100 levels of lists
NOT_TEXT_VALUES = ["a\x07b", "\x00", "\x1b[31mred", "x\x7f"]


def named_edit(draw, data) -> tuple[str, str]:
    """One of the edits a results file meets (a field dropped or retyped where jtau reads it),
    in place: (note, expectation).  Every field jtau reads is one tau2 always writes."""
    sims = data["simulations"]
    s = draw(st.integers(0, len(sims) - 1))
    sim = sims[s]
    calls = _calls(data)
    where = draw(st.sampled_from(["simulations", "simulation", "task_id", "messages", "message", "tool_calls",
                                  "arguments", "name", "reward_info", "reward", "termination_reason", "trial",
                                  "seed", "skipped", "info", "domain", "temperature", "llm", "text"]))
    wrong = draw(st.sampled_from(WRONG_TYPES))
    drop = draw(st.booleans())
    if where == "simulations":
        if drop:
            del data["simulations"]
            return "simulations deleted", REFUSE
        data["simulations"] = wrong if wrong != [] else {}
        return f"simulations = {wrong!r}", REFUSE
    if where == "simulation":
        sims[s] = wrong if wrong != {} else "x"
        return f"simulations[{s}] = {sims[s]!r}", REFUSE
    if where in ("task_id", "messages", "reward_info", "termination_reason"):
        if drop:
            del sim[where]
            return f"simulations[{s}].{where} deleted", REFUSE
        allowed = {"task_id": ("x", 1), "messages": (None, []), "reward_info": (None,),
                   "termination_reason": ("x",)}[where]
        if where == "messages" and wrong in ([], None):
            return f"simulations[{s}].messages = {wrong!r}", ANY  # (1.0.1: a voice run's messages are null)
        sim[where] = wrong
        return f"simulations[{s}].{where} = {wrong!r}", ANY if wrong in allowed and type(wrong) is not bool else REFUSE
    if where in ("trial", "seed"):
        if drop:
            sim.pop(where, None)
            return f"simulations[{s}].{where} deleted", ANY
        sim[where] = wrong
        return f"simulations[{s}].{where} = {wrong!r}", ANY if wrong is None or type(wrong) is int else REFUSE
    if where == "skipped":
        sim["skipped"] = wrong
        return f"simulations[{s}].skipped = {wrong!r}", ANY if wrong in (None,) or wrong is True else REFUSE
    if where == "reward":
        if sim["reward_info"] is None:
            sim["reward_info"] = {}
        if drop:
            sim["reward_info"].pop("reward", None)
            return f"simulations[{s}].reward_info.reward deleted", REFUSE
        sim["reward_info"]["reward"] = wrong
        return f"simulations[{s}].reward_info.reward = {wrong!r}", ANY if wrong is None or wrong in (1, 1.5) and \
            type(wrong) is not bool else REFUSE
    if where == "info":
        if drop:
            del data["info"]
            return "info deleted", REFUSE
        data["info"] = wrong
        return f"info = {wrong!r}", REFUSE
    if where == "domain":
        env = data["info"]["environment_info"]
        if drop:
            del env["domain_name"]
            return "info.environment_info.domain_name deleted", REFUSE
        env["domain_name"] = draw(st.sampled_from([wrong, "", "airline", "airline_xx", "x" * 300,
                                                   *NOT_TEXT_VALUES]))
        value = env["domain_name"]
        refuse = not isinstance(value, str) or value == "" or value in NOT_TEXT_VALUES
        return f"info.environment_info.domain_name = {value!r}", REFUSE if refuse else ANY
    if where == "temperature":
        args = data["info"]["agent_info"]["llm_args"]
        if drop:
            del args["temperature"]
            return "info.agent_info.llm_args.temperature deleted", REFUSE
        args["temperature"] = draw(st.sampled_from([wrong, -1, -0.5, 0.7, 2, 1e308, "@@NaN", "@@1e400"]))
        value = args["temperature"]
        ok = value is None or type(value) in (int, float) and 0 <= value < 1e309
        return f"info.agent_info.llm_args.temperature = {value!r}", ANY if ok and value is not None else REFUSE
    if where == "llm":
        agent = data["info"]["agent_info"]
        agent["llm"] = draw(st.sampled_from([wrong, "", *NOT_TEXT_VALUES, "x" * 300, "日本語"]))
        value = agent["llm"]
        refuse = value is not None and (not isinstance(value, str) or value in NOT_TEXT_VALUES or value == "")
        return f"info.agent_info.llm = {value!r}", REFUSE if refuse else ANY
    if not calls:
        return "no tool call to edit", ANY
    cs, m, c = draw(st.sampled_from(calls))
    message = data["simulations"][cs]["messages"][m]
    call = message["tool_calls"][c]
    at = f"simulations[{cs}].messages[{m}]"
    if where == "message":
        data["simulations"][cs]["messages"][m] = wrong if wrong != {} else "x"
        return f"{at} = {wrong!r}", REFUSE
    if where == "tool_calls":
        message["tool_calls"] = wrong if wrong not in ([], None) else {}
        return f"{at}.tool_calls = {message['tool_calls']!r}", REFUSE
    if where in ("arguments", "name"):
        if drop:
            del call[where]
            return f"{at}.tool_calls[{c}].{where} deleted", REFUSE
        call[where] = wrong if where == "name" or wrong != {} else "x"
        # a name that is text is a call of a tool the domain may lack: an agent's to make, a trace's to keep
        fine = where == "name" and isinstance(wrong, str)
        return f"{at}.tool_calls[{c}].{where} = {call[where]!r}", ANY if fine else REFUSE
    # text that is no text, or nested too deeply, where a trace takes it
    value = draw(st.sampled_from([*NOT_TEXT_VALUES, DEEP_ARGS]))
    target = draw(st.sampled_from(["task_id", "name", "argument", "key"]))
    if target == "task_id" and value is not DEEP_ARGS:
        sims[cs]["task_id"] = value
    elif target == "name" and value is not DEEP_ARGS:
        call["name"] = value
    elif target == "key" and value is not DEEP_ARGS:
        call["arguments"] = {value: 1, **call["arguments"]}
    else:
        call["arguments"] = {**call["arguments"], "extra": value}
    return f"{target} of {at}.tool_calls[{c}] holds {str(value)[:20]!r}", REFUSE


def dump_results(data, raw: mutate.Raw, indent: int | None = 2) -> bytes:
    """The data as tau2 writes it (indented), raw tokens and markers spliced in: `@@NaN`,
    `@@1e400`, DEEP_ARGS."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    text = text.replace('"@@NaN"', "NaN").replace('"@@1e400"', "1e400").replace('"@@deep"', "[" * 100 + "]" * 100)
    return raw.splice(text.encode("utf-8", "surrogatepass"))


SUBTREES = ("simulation", "message", "call", "info", "reward_info")


def tree_edit(draw, data, raw: mutate.Raw) -> str:
    """A mutation of mutate.py on a part of the file jtau reads (a simulation, a message, a
    tool call, the run's info), in place; its note.  (What it must end in is the caller's: a
    file that is no JSON is refused; a value that is no text counts only where a trace takes it.)"""
    part = draw(st.sampled_from(SUBTREES))
    calls = _calls(data)
    sims = data["simulations"]
    if part == "call" and calls:
        s, m, c = draw(st.sampled_from(calls))
        parent, key, at = sims[s]["messages"][m]["tool_calls"], c, f"simulations[{s}].messages[{m}].tool_calls[{c}]"
    elif part == "message":
        s = draw(st.integers(0, len(sims) - 1))
        m = draw(st.integers(0, len(sims[s]["messages"]) - 1))
        parent, key, at = sims[s]["messages"], m, f"simulations[{s}].messages[{m}]"
    elif part == "info":
        parent, key, at = data, "info", "info"
    elif part == "reward_info":
        s = draw(st.integers(0, len(sims) - 1))
        parent, key, at = sims[s], "reward_info", f"simulations[{s}].reward_info"
    else:
        s = draw(st.integers(0, len(sims) - 1))
        parent, key, at = sims, s, f"simulations[{s}]"
    parent[key], _, note = mutate.mutate_tree(draw, parent[key], raw)
    return f"{at}: {note}"


def tau2_values(domain: str) -> list[str]:
    """How a side's results are given: 26.3's `X.json`; 1.0.1's `X/results.json` or its folder `X/`."""
    base = f"{{S}}/{results_name(domain)}"
    return [base, str(Path(base).parent)] if is_tau3() else [base]


def odd_results_file(draw, data: bytes, name: str, files: dict[str, bytes]) -> tuple[bytes | None, str]:
    """The whole file odd: empty, another JSON value, cut, a byte-order mark, trailing data, not
    UTF-8, or a folder where the file belongs (None: no file written)."""
    way = draw(st.sampled_from(["empty", "value", "half", "bom", "trailing", "latin1", "folder"]))
    if way == "value":
        value = draw(st.sampled_from([b"[]", b"{}", b"null", b"1", b'"x"', b'{"simulations": []}',
                                      b'{"info": {}, "simulations": []}']))
        return value, f"the file is {value.decode()}"
    if way == "folder":
        files[f"{name}/results.json/.keep"] = b""
        return None, "a folder where the file belongs"
    mutated = {"empty": b"", "half": data[: len(data) // 2], "bom": b"\xef\xbb\xbf" + data,
               "trailing": data + b"\n{}\n", "latin1": data.decode("utf-8").encode("utf-8").replace(
                   "\u3000".encode(), b"\xa0") + b"\xe9"}[way]
    return mutated, f"the file {way}"


TEMPERATURES = ["nan", "inf", "-inf", "1e308", "1e309", "0", "-0", "0.5", "1e-320", "1_0", "", "NaN", "30", "-1",
                "-0.5", "0x1"]
BAD_TEMPERATURES = {"nan", "inf", "-inf", "1e309", "", "NaN", "-1", "-0.5", "0x1"}
NAMES = ["gpt-4.1", "", " ", "x" * 300, "\x1b[31m", "a\x07b", "日本語", "a\nb", "-x", "\u202e"]
BAD_NAMES = {"", "\x1b[31m", "a\x07b"}


def _reads_back(case: Case, sandbox: Path, stdout: str, stderr: str) -> list[str]:
    """After `retention import`: the trace file reads back (jtau's reader), one trace for every
    simulation of the results given and every transcript line, as the command said."""
    import orjson

    from jtau.errors import JtauError
    from jtau.retention.traces import read_traces

    argv = [arg.replace("{S}", str(sandbox)) for arg in case.argv]
    out = Path(argv[argv.index("-o") + 1])
    try:
        traces = list(read_traces([out]))
    except JtauError as exc:
        return [f"the trace file written does not read back: {exc.message}"]
    expected = 0
    for flag, value in zip(argv, argv[1:]):
        path = Path(value)
        if flag == "--tau2":
            path = path / "results.json" if path.is_dir() else path
            data = orjson.loads(path.read_bytes())
            expected += len(data["simulations"]) if "simulations" in data else len(
                list((path.parent / "simulations").glob("*.json")))  # 1.0.1's dir format
        elif flag == "--react":
            expected += sum(1 for line in path.read_bytes().split(b"\n") if line.strip())
    if len(traces) != expected:
        return [f"{len(traces)} traces written for {expected} simulations and transcripts"]
    if f"{len(traces)} traces written" not in stdout:
        return [f"the command said {stdout.strip()[:200]!r} for {len(traces)} traces"]
    return []


CHECKS["traces_read_back"] = _reads_back


@st.composite
def import_case(draw) -> Case:
    """`jtau retention import` of the real results (and transcripts), one of them mutated, or
    with odd values of its options."""
    seeds = results_seeds()
    sides = draw(st.sampled_from([("airline_ja",), ("airline_en",), ("airline_en", "airline_ja")]))
    way = draw(st.sampled_from(["named", "named", "named", "tree", "tree", "bytes", "layout", "file", "dir",
                                "react", "react", "react", "options"]))
    files = {results_name(d): seeds[d] for d in sides}
    tau2 = [arg for d in sides for arg in ("--tau2", draw(st.sampled_from(tau2_values(d))))]
    options, out, expect, note = [], "{S}/traces.jsonl", ANY, ""
    if way in ("named", "tree", "bytes", "layout", "file"):
        side = draw(st.sampled_from(sides))
        name, data, raw = results_name(side), json.loads(seeds[side]), mutate.Raw()
        if way == "named":
            note, expect = named_edit(draw, data)
            mutated = dump_results(data, raw)
        elif way == "tree":
            note = tree_edit(draw, data, raw)
            mutated = dump_results(data, raw)
        elif way == "bytes":
            mutated, note = mutate.byte_edit(draw, seeds[side])
        elif way == "layout":
            indent, keys = draw(st.sampled_from([None, 1, 4])), draw(st.booleans())
            mutated = json.dumps(data, ensure_ascii=draw(st.booleans()), indent=indent, sort_keys=keys).encode()
            note, expect = f"the same data, indent {indent}, keys sorted {keys}", SAME
        else:
            mutated, note = odd_results_file(draw, seeds[side], name, files)
        if mutated is None:
            del files[name]
            expect = REFUSE
        else:
            files[name] = mutated
            if not json_value(mutated):
                expect = REFUSE
        note = f"{side}: {note}"
    if way == "dir":  # tau2-bench 1.0.1's dir format (`tau2 convert-results`): results.json, simulations/ID.json
        side = draw(st.sampled_from(sides))
        data = json.loads(seeds[side])
        note, expect = named_edit(draw, data) if draw(st.booleans()) else ("as it is", ANY)
        del files[results_name(side)]
        sims = data.pop("simulations", None)
        if isinstance(sims, list):
            for index, sim in enumerate(sims):
                name = sim["id"] if isinstance(sim, dict) and isinstance(sim.get("id"), str) else f"sim{index}"
                files[f"dir/{side}/simulations/{name}.json"] = dump_results(sim, mutate.Raw())
        elif sims is not None:
            data["simulations"] = sims
        files[f"dir/{side}/results.json"] = dump_results(data, mutate.Raw())
        at = tau2.index(next(v for v in tau2 if side in v))
        tau2[at] = draw(st.sampled_from([f"{{S}}/dir/{side}", f"{{S}}/dir/{side}/results.json"]))
        note = f"{side} in dir format: {note}"
    react = way == "react" or draw(st.integers(0, 5)) == 0
    if react:
        data = react_seed()
        if way == "react":
            data, expect, note = react_edit(draw, data)
            if draw(st.integers(0, 2)) == 0:
                tau2, files = [], {}
        files["react.jsonl"] = data
        tau2 += ["--react", "{S}/react.jsonl"]
    if way == "options":
        option = draw(st.sampled_from(["--temperature", "--model", "--source-lang", "-o", "--react"]))
        if option == "--temperature":
            value = draw(st.sampled_from(TEMPERATURES))
            expect = REFUSE if value in BAD_TEMPERATURES else ANY
        elif option in ("--model", "--source-lang"):
            value = draw(st.sampled_from(NAMES))
            expect = REFUSE if value in BAD_NAMES else ANY
        elif option == "--react":
            value = draw(st.sampled_from(["{S}/afolder", "{S}/missing.jsonl", "{S}/afile", "{S}/empty.jsonl"]))
            expect = ANY if value in ("{S}/afile", "{S}/empty.jsonl") else REFUSE
        else:
            out = value = draw(st.sampled_from(["{S}/afolder", "{S}/afile/t.jsonl", "{S}/" + "x" * 300 + ".jsonl",
                                                "{S}/new/sub/t.jsonl", "{S}/run"]))
            expect = ANY if value == "{S}/new/sub/t.jsonl" else REFUSE
        files.update({"afolder/.keep": b"", "afile": b"in the way\n", "empty.jsonl": b""})
        if option == "--react" and value == "{S}/afile":
            expect = REFUSE  # `in the way` is no JSON
        options = [option, value] if option != "-o" else []
        note = f"{option} {value[:40]!r}"
    argv = ["retention", "import", *tau2, *options, "-o", out]
    if expect == SAME:
        base = baseline(tuple(argv), tuple({results_name(d): seeds[d] for d in sides}.items()) + (
            (("react.jsonl", react_seed()),) if react else ()), ("traces.jsonl",))
    else:
        base = None
    return Case(kind="results", argv=argv, files=files, expect=expect, note=note, baseline=base,
                outputs=(out.replace("{S}/", ""),) if out.startswith("{S}/") else (), check="traces_read_back")


# --- ReAct transcripts ----------------------------------------------------------------------

REACT_FIELDS = ("model", "benchmark", "language", "temperature", "replicate", "task_id", "transcript")
REACT_LINES = [b"{", b"[]", b"null", b'{"model": "m"}', b"\xff", b"x" * 100_000, b"[" * 5000 + b"]" * 5000, b"{}",
               b"\x00", b"\xef\xbb\xbf{}"]
DEEP_INPUT = "[" * 1000 + "]" * 1000
ODD_ACTIONS = [  # (lines put into a transcript, whether the file must be refused)
    ("Action: " + "a" * 100_000, False), ("Action" + ":" * 50_000 + "x", False), ("action " + " " * 50_000, False),
    ("Finish" + ":" * 50_000, False), ("Action: get_user_details\nAction Input: " + "a" * 100_000, False),
    ("Action: get_user_details\nAction Input: " + "a=" * 50_000, False),
    ("Action: get_user_details[" + "x" * 100_000 + "]", False), ("Action: tool\x07x", False),
    ("Action: get_user_details\nAction Input: " + DEEP_INPUT, True),
    ("Action: get_user_details\nAction Input: " + '{"a": ' * 100 + "1" + "}" * 100, True),
    ('Action: get_user_details\nAction Input: {"user_id": "a\\u0007b"}', True),
    ('Action: get_user_details\nAction Input: {"a\\u001bb": 1}', True),
    ('Action: get_user_details\nAction Input: {"n": 18446744073709551616}', False),
    ("Action: 日本語のツール", False), ("Action Input: {}", False), ("Thought: x\n" * 10_000, False),
    ("\u2028Action: get_user_details", False), ("Action: Finish", False), ("", False),
]


def react_edit(draw, data: bytes) -> tuple[bytes, str, str]:
    """A transcripts file mutated: a field of a line dropped or retyped, a transcript's text,
    a line, the bytes; (data, expectation, note)."""
    lines = data.split(b"\n")[:-1]
    at = draw(st.integers(0, len(lines) - 1))
    item = json.loads(lines[at])
    way = draw(st.sampled_from(["field", "field", "text", "text", "tree", "lines", "bytes", "layout"]))
    expect = ANY
    if way == "field":
        key = draw(st.sampled_from(REACT_FIELDS))
        if draw(st.booleans()):
            del item[key]
            note, expect = f"line {at + 1}: {key} deleted", REFUSE
        else:
            value = draw(st.sampled_from([*WRONG_TYPES, "", -1, 0.5, "0.5", *NOT_TEXT_VALUES]))
            item[key] = value
            allowed = {"model": ("x", " ") + ("0.5",), "benchmark": ("x", "0.5"), "language": ("x", "0.5"),
                       "temperature": (1, 1.5, 0.5), "replicate": (1, -1), "task_id": ("x", 1, -1, "0.5"),
                       "transcript": ("x", "", "0.5", *NOT_TEXT_VALUES)}[key]
            ok = value in allowed and type(value) is not bool and not (type(value) is float and key == "task_id")
            note, expect = f"line {at + 1}: {key} = {value!r}", ANY if ok else REFUSE
        lines[at] = json.dumps(item, ensure_ascii=False).encode()
    elif way == "text":
        odd, refuse = draw(st.sampled_from(ODD_ACTIONS))
        text = item["transcript"].split("\n")
        where = draw(st.integers(0, len(text) - 1))  # before the Finish, which ends the actions read
        item["transcript"] = "\n".join([*text[:where], odd, *text[where:]]) if draw(st.booleans()) else odd
        lines[at] = json.dumps(item, ensure_ascii=False).encode()
        note, expect = f"line {at + 1}: transcript with {odd[:40]!r}", REFUSE if refuse else ANY
    elif way == "tree":
        raw = mutate.Raw()
        mutated, _, note = mutate.mutate_tree(draw, item, raw)
        lines[at] = raw.splice(json.dumps(mutated, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        note = f"line {at + 1}: {note}"
    elif way == "layout":
        lines[at] = json.dumps(dict(reversed(list(item.items()))), indent=None, separators=(" ,", " : ")).encode()
        note, expect = f"line {at + 1}: the same data laid out anew", SAME
    else:
        mutated, note = (mutate.line_edit(draw, data, REACT_LINES) if way == "lines"
                         else mutate.byte_edit(draw, data))
        lines = mutated.split(b"\n")
    mutated = b"\n".join(lines) + b"\n"
    if not json_lines(mutated):
        expect = REFUSE
    return mutated, expect, note


# --- trace files ------------------------------------------------------------------------------

TRACE_VALUES = {  # field -> (odd values, those a trace may hold)
    "model": (WRONG_TYPES + ["", *NOT_TEXT_VALUES, "x" * 300], ("x", 1, "x" * 300)),
    "benchmark": (WRONG_TYPES + ["", *NOT_TEXT_VALUES, "retail"], ("x", 1, "retail")),
    "language": (WRONG_TYPES + ["", *NOT_TEXT_VALUES, "en", "hi"], ("x", 1, "en", "hi")),
    "task_id": (WRONG_TYPES + ["", *NOT_TEXT_VALUES, "2", "99"], ("x", 1, "2", "99")),
    "temperature": (WRONG_TYPES + [-1, 0.7, "0", 1e308, "@@NaN"], (1, 1.5, 0.7, 1e308)),
    "replicate": (WRONG_TYPES + [-1, 7, "0", 2**63], (1, -1, 7, 2**63)),
    "parsed": (WRONG_TYPES + [False, 0], (True,)),
    "actions": (WRONG_TYPES + [[{"tool": 1}], [{"tool": "t", "args": []}], [{"args": {}}], ["t"],
                                [{"tool": "a\x07b"}], [{"tool": "t", "args": {"k": "\x00"}}],
                                [{"tool": "t", "args": {"k": DEEP_ARGS}}], [{"tool": "t", "args": {"\x1b": 1}}],
                                [{"tool": "t"}], [{"tool": ""}]], ([], [{"tool": "t"}], [{"tool": ""}])),
    "seed": (WRONG_TYPES + [-1, 2**63, "1"], (1, None, -1, 2**63)),
    "reward": (WRONG_TYPES + [-1, 2, "1", "@@NaN"], (1, 1.5, None, -1, 2)),
    "failure": (WRONG_TYPES + ["", *NOT_TEXT_VALUES], (None,)),
    "diagnostics": (WRONG_TYPES + [{"turns": "x"}, {"turns": [1]}, {"turns": 1.5}, {"turns": None}, {"x": {}},
                                    {"turns": -1}, {"turns": 2**63}, {"agent_messages": 0}], (None, {}, {"x": 1})),
    "run": (WRONG_TYPES + [*NOT_TEXT_VALUES, ""], ("x", None, "")),
    "user": (WRONG_TYPES + [*NOT_TEXT_VALUES, ""], ("x", None, "")),
    "thoughts": (WRONG_TYPES + [*NOT_TEXT_VALUES, "", "x" * 70_000], ("x", None, "", "x" * 70_000)),
}
ANALYZE_OPTIONS = {  # option -> (values, those refused)
    "--permutations": (["10", "9", "0", "-1", "1000000", "1e3", "", "nan", "50", "1000001"],
                       {"9", "0", "-1", "1e3", "", "nan", "1000001"}),
    "--bootstrap": (["0", "1", "-1", "20", "100000", "100001", "x", ""], {"-1", "100001", "x", ""}),
    "--pairs": (["en:ja", "ja:en", "en:ja,en:ja", "en:", ":", "en:ja:x", "en:xx", ",", "en:en", "a\x07:ja",
                 "en:ja," + "x:y," * 1000], {"en:", ":", "en:ja:x", ",", "a\x07:ja"}),
    "--source-lang": (["en", "ja", "", "xx", "\x1b[31m", "x" * 300], {"", "\x1b[31m"}),
    "--target-lang": (["ja", "en", "", "xx", "\x07", "x" * 300], {"", "\x07"}),
    "--baseline": (["pooled", "source", "target", "", "POOLED", "x" * 300], {"", "POOLED", "x" * 300}),
    "--json": (["{S}/afolder", "{S}/afile/r.json", "{S}/" + "x" * 300 + ".json", "{S}/new/sub/r.json"],
               {"{S}/afolder", "{S}/afile/r.json", "{S}/" + "x" * 300 + ".json"}),
    "--markdown": (["{S}/afolder", "{S}/afile/r.md", "{S}/" + "x" * 300 + ".md", "{S}/new/sub/r.md"],
                   {"{S}/afolder", "{S}/afile/r.md", "{S}/" + "x" * 300 + ".md"}),
}


def _analysis_reads(case: Case, sandbox: Path, stdout: str, stderr: str) -> list[str]:
    """After `retention analyze`: the JSON written holds the cells (each names the model and the
    pair), and the Markdown is a report."""
    argv = [arg.replace("{S}", str(sandbox)) for arg in case.argv]
    problems = []
    if "--json" in argv:
        data = json.loads(Path(argv[argv.index("--json") + 1]).read_text(encoding="utf-8"))
        cells = data.get("cells")
        if not cells or not all(isinstance(c.get("model"), str) and c.get("source") != c.get("target")
                                for c in cells):
            problems.append(f"the JSON written holds no cells or odd ones: {str(cells)[:300]}")
    if "--markdown" in argv and not Path(argv[argv.index("--markdown") + 1]).read_text(encoding="utf-8").strip():
        problems.append("the Markdown written is empty")
    return problems


CHECKS["analysis_reads"] = _analysis_reads


def trace_edit(draw, lines: list[bytes]) -> tuple[list[bytes], str, str]:
    """One trace line's field dropped or given an odd value, or a mutation of mutate.py."""
    at = draw(st.integers(0, len(lines) - 1))
    item = json.loads(lines[at])
    raw = mutate.Raw()
    if draw(st.integers(0, 2)) == 0:
        mutated, _, note = mutate.mutate_tree(draw, item, raw)
        expect = ANY
    else:
        field = draw(st.sampled_from(sorted(TRACE_VALUES)))
        values, allowed = TRACE_VALUES[field]
        if field in ("model", "benchmark", "language", "temperature", "replicate", "task_id", "parsed", "actions") \
                and draw(st.integers(0, 3)) == 0:
            del item[field]
            note, expect = f"{field} deleted", REFUSE
        else:
            value = draw(st.sampled_from(values))
            ok = any(value == a and type(value) is type(a) for a in allowed)
            if field == "parsed" and value is False:
                ok = not item["actions"]
            if field == "failure" and not item["parsed"]:
                ok = True
            item[field] = value
            note, expect = f"{field} = {str(value)[:40]!r}", ANY if ok else REFUSE
        mutated = item
    text = json.dumps(mutated, ensure_ascii=False).replace('"@@NaN"', "NaN").replace('"@@deep"', "[" * 100 + "]" * 100)
    lines = [*lines[:at], raw.splice(text.encode("utf-8", "surrogatepass")), *lines[at + 1:]]
    return lines, expect, f"line {at + 1}: {note}"


@st.composite
def analyze_case(draw) -> Case:
    """`jtau retention analyze` of the traces of the real runs, mutated, or with odd options."""
    seed = trace_seed()
    lines = seed.split(b"\n")[:-1]
    way = draw(st.sampled_from(["field", "field", "field", "lines", "bytes", "layout", "twice", "options",
                                "options"]))
    expect, note = ANY, ""
    options = ["--permutations", "20", "--bootstrap", "20", *draw(st.sampled_from([[], ["--details"]])),
               "--json", "{S}/report.json", "--markdown", "{S}/report.md"]
    files = {"traces.jsonl": seed}
    inputs = ["{S}/traces.jsonl"]
    if way == "field":
        lines, expect, note = trace_edit(draw, lines)
    elif way in ("lines", "bytes"):
        data, note = (mutate.line_edit(draw, seed, REACT_LINES) if way == "lines" else mutate.byte_edit(draw, seed))
        lines = data.split(b"\n")
    elif way == "layout":
        layout = draw(st.sampled_from(["keys", "spaces", "crlf", "blank", "split"]))
        if layout == "keys":
            lines = [json.dumps(dict(reversed(list(json.loads(line).items()))), ensure_ascii=False).encode()
                     for line in lines]
        elif layout == "spaces":
            lines = [json.dumps(json.loads(line), indent=None, separators=(" , ", " : ")).encode() for line in lines]
        elif layout == "crlf":
            lines = [line + b"\r" for line in lines]
        elif layout == "blank":
            lines = [b"", *(part for line in lines for part in (line, b"  "))]
        else:  # the same traces in two files
            files["more.jsonl"] = b"\n".join(lines[1:]) + b"\n"
            inputs.append("{S}/more.jsonl")
            lines = lines[:1]
        note, expect = f"the same traces: {layout}", SAME
    elif way == "twice":
        inputs.append("{S}/traces.jsonl")
        note, expect = "the same file given twice", REFUSE
    else:
        option = draw(st.sampled_from(sorted(ANALYZE_OPTIONS)))
        values, refused = ANALYZE_OPTIONS[option]
        value = draw(st.sampled_from(values))
        if option in options:
            at = options.index(option)
            options = [*options[:at], *options[at + 2:]]
        options += [option, value]
        files.update({"afolder/.keep": b"", "afile": b"in the way\n"})
        note, expect = f"{option} {value[:40]!r}", REFUSE if value in refused else ANY
    data = b"\n".join(lines) + b"\n"
    files["traces.jsonl"] = data
    if not json_lines(data) or any(not json_lines(d) for d in files.values() if d is not data and d != b"in the way\n"
                                    and d):
        expect = REFUSE
    argv = ["retention", "analyze", *inputs, *options]
    outputs = tuple(options[i + 1].replace("{S}/", "") for i, o in enumerate(options) if o in ("--json", "--markdown"))
    base = baseline(tuple(["retention", "analyze", "{S}/traces.jsonl", *options]), (("traces.jsonl", seed),),
                    outputs) if expect == SAME else None
    return Case(kind="traces", argv=argv, files=files, expect=expect, note=note, baseline=base, outputs=outputs,
                check="analysis_reads")


register(Kind("results", "tau2 results and ReAct transcripts (`retention import`)", import_case()))
register(Kind("traces", "retention traces (`retention analyze`)", analyze_case()))
