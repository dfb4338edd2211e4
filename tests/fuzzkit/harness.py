"""Run one fuzz case as a user meets it: the real `jtau` command line, in a forked child of a
warmed-up process (imports done, caches filled), so a case costs the command's own work and a
hang, a crash or a memory blow-up ends the child, not the run.

A case is a sandbox (files to write, existing inputs to link), the command's arguments and
what the mutation lets us expect.  Its outcome is one of:

    ok          exit 0, and the outputs pass the generic checks (and the kind's own)
    refused     exit 1 or 2 with a clear error (below), nothing written
    traceback   an exception other than SystemExit escaped the command (or the child died)
    bad exit    an exit code other than 0, 1, 2
    hang        no end within CASE_TIMEOUT seconds (the child is killed)
    memory      more than MEMORY_BUDGET_MB of memory above the parent's, or MemoryError
    wrong       exit 0 with a wrong output (or where the mutation must be refused)
    unclear     exit 1/2, but the error is not one readable line naming a place
    partial     exit 1/2, and something in the sandbox was written or changed

A clear error: the first line `error: ...` (with indented detail lines), or -- `tm import`'s
report -- only indented lines `  FILE:LINE: ...`; no line longer than MAX_LINE, no control
character; the error names a file of the case (or the argument at fault).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

CASE_TIMEOUT = 90.0  # seconds; the slowest real command (telecom localize) takes ~3 s here
MEMORY_BUDGET_MB = 1500  # above the parent's resident memory; telecom localize takes ~600 MB
ADDRESS_LIMIT_MB = 4096  # the child cannot map more than this above the parent (a bomb fails, not the machine)
MAX_LINE = 2_500  # characters of one printed error line (jtau.util.limits.MAX_ERROR_LINE and a path)

ANY, REFUSE, SAME = "any", "refuse", "same"  # what a case may end in: anything clean, exit 1/2, the baseline
OUTCOMES = ("ok", "refused", "traceback", "bad exit", "hang", "memory", "wrong", "unclear", "partial")
FAILURES = OUTCOMES[2:]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # C0 (but tab and newline) and DEL
# a file as a domain's folder names it, with a line or a JSON path: `tasks.json task 12 ...`, `policy.md:42:`
FILE_NAMED = re.compile(r"[\w./-]+\.(?:json|jsonl|md|toml|dot|yaml)(?::\d+:|: | task )")


@dataclass
class Case:
    """One run of the command.  Paths in `argv`, `files` and `links` are relative to the sandbox
    unless absolute; `{S}` in an argument is the sandbox folder."""

    kind: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)  # sandbox path -> content (the mutated inputs)
    links: dict[str, str] = field(default_factory=dict)  # sandbox path -> existing file or folder (symlinked)
    copies: dict[str, str] = field(default_factory=dict)  # sandbox path -> existing file or folder (copied)
    expect: str = ANY
    note: str = ""  # what the mutation did, for the report
    env: dict[str, str] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()  # sandbox paths the command writes on success (checked then)
    check: str = ""  # name of the kind's extra check of a success (see CHECKS)
    baseline: dict[str, bytes] | None = None  # SAME: the outputs of the unmutated input
    setup: str = ""  # name of a function run in the child before the command (see SETUPS)
    may_write: tuple[str, ...] = ()  # sandbox paths exit 1 may change (tm import records the valid units)


@dataclass
class Outcome:
    outcome: str
    exit_code: int | None
    seconds: float
    memory_mb: float
    stderr: str = ""
    detail: str = ""  # the traceback, or why the outcome is not ok/refused
    note: str = ""
    cpu_seconds: float = 0.0  # the child's own CPU time: a bound that holds on a busy machine too


# Extra checks of a successful case, and set-ups run in the child, by name (a case is plain data).
CHECKS: dict[str, callable] = {}
SETUPS: dict[str, callable] = {}


def _snapshot(folder: Path) -> dict[str, str]:
    """Every entry under `folder` (not following links): its kind and content digest."""
    out = {}
    for path in sorted(folder.rglob("*")):
        relative = str(path.relative_to(folder))
        if path.is_symlink():
            out[relative] = "link:" + os.readlink(path)
        elif path.is_dir():
            out[relative] = "dir"
        else:
            out[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _prepare(case: Case, sandbox: Path) -> list[str]:
    for name, target in case.links.items():
        path = sandbox / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    for name, target in case.copies.items():
        path = sandbox / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if Path(target).is_dir() else shutil.copyfile)(target, path)
    for name, data in case.files.items():
        path = sandbox / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_bytes(data)
    return [arg.replace("{S}", str(sandbox)) for arg in case.argv]


def invoke(argv: list[str]) -> tuple[int | None, str, str, str]:
    """Run `jtau ARGV` in this process as the console script does: exit code (None if an
    exception escaped), stdout, stderr, and the traceback of an escaped exception."""
    from jtau.cli import main

    out, err = io.StringIO(), io.StringIO()
    code, tb = None, ""
    saved = sys.argv
    sys.argv = ["jtau", *argv]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except MemoryError:
        tb = "MemoryError"
    except BaseException:  # noqa: BLE001 - any escaping exception is what we count
        tb = traceback.format_exc()
    finally:
        sys.argv = saved
    return code, out.getvalue(), err.getvalue(), tb


def clear_error(stderr: str, exit_code: int, names: list[str]) -> str:
    """Why `stderr` is not a clear error (empty when it is)."""
    lines = [line for line in stderr.split("\n") if line.strip()]
    while lines and lines[0].startswith(("note: ", "warning: ")) and len(lines) > 1:
        lines = lines[1:]  # what the command says before it fails (a domain left out)
    if not lines:
        return "nothing on stderr"
    long = [line for line in lines if len(line) > MAX_LINE]
    if long:
        return f"a line of {len(long[0]):,} characters"
    if any(CONTROL.search(line.replace("\t", " ")) for line in lines):
        return "a control character printed"
    if lines[0].startswith("error: "):
        if any(not line.startswith("  ") for line in lines[1:]):
            return "lines after the error line that are not its indented details"
    elif exit_code == 1 and all(line.startswith("  ") for line in lines):
        pass  # tm import: the refused units, one line each
    elif exit_code == 1 and len(lines) == 1:
        pass  # a result that is no success, in one line (tm export: "no missing segments ...; nothing written")
    elif exit_code == 2 and re.search(r"^Usage: .*\bjtau ", stderr, re.M):
        return ""  # a usage error of the command line parser, naming the option (`python -m pytest.jtau` in
        # click's usage line when the suite runs as `python -m pytest`)
    else:
        return "no `error:` line"
    text = "\n".join(lines)
    if not any(name and name in text for name in names) and not FILE_NAMED.search(text):
        return "names no file of the case nor the argument at fault"
    return ""


def strict_json(data: bytes):
    def constant(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=constant)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def output_problems(folder: Path) -> list[str]:
    """What is wrong with files a successful command wrote: each parses strictly (JSON without
    NaN, TOML, UTF-8 text), and no text holds a control character or a lone surrogate."""
    found = []
    paths = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.is_file())
    for path in paths:
        data = path.read_bytes()
        try:
            if path.suffix in (".json", ".jsonl"):
                values = [strict_json(line) for line in data.splitlines() if line.strip()] \
                    if path.suffix == ".jsonl" else [strict_json(data)]
                texts = [s for value in values for s in _strings(value)]
            elif path.suffix == ".toml":
                texts = list(_strings(tomllib.loads(data.decode("utf-8"))))
            else:
                texts = [data.decode("utf-8")]
        except (ValueError, UnicodeDecodeError) as exc:
            found.append(f"{path}: not readable: {str(exc)[:200]}")
            continue
        for text in texts:
            if CONTROL.search(text.replace("\t", " ").replace("\n", " ").replace("\r", " ")):
                found.append(f"{path}: a control character in {text[:80]!r}")
                break
    return found


def _run_child(case: Case, sandbox: Path, result_file: Path, parent_vm: int) -> None:
    """In the forked child: prepare, run, judge; write the Outcome to `result_file`."""
    limit = parent_vm + ADDRESS_LIMIT_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    argv = _prepare(case, sandbox)
    os.environ.update({key: value.replace("{S}", str(sandbox)) for key, value in case.env.items()})
    if case.setup:
        SETUPS[case.setup](sandbox)
    before = _snapshot(sandbox)
    started = time.monotonic()
    code, stdout, stderr, tb = invoke(argv)
    seconds = time.monotonic() - started
    outcome, detail = _judge(case, sandbox, before, code, stdout, stderr, tb)
    result_file.write_bytes(pickle.dumps(Outcome(outcome, code, seconds, 0.0, stderr[-5000:], detail, case.note)))


def _judge(case: Case, sandbox: Path, before: dict, code, stdout: str, stderr: str, tb: str) -> tuple[str, str]:
    if tb:
        return ("memory" if tb == "MemoryError" else "traceback"), tb[-3000:]
    if code not in (0, 1, 2):
        return "bad exit", f"exit {code}"
    if code == 0:
        if case.expect == REFUSE:
            return "wrong", "exit 0 where the input must be refused"
        problems = []
        for name in case.outputs:
            path = sandbox / name
            if path.exists():
                problems += output_problems(path)
        if case.expect == SAME and case.baseline is not None:
            for name, data in case.baseline.items():
                path = sandbox / name
                if not path.is_file() or path.read_bytes() != data:
                    problems.append(f"{name}: differs from the output of the unmutated input")
        if case.check and not problems:
            problems += CHECKS[case.check](case, sandbox, stdout, stderr)
        return ("wrong", "; ".join(problems)[:3000]) if problems else ("ok", "")
    # what an error may name: a file of the case (as a path, or as its domain folder names it:
    # `tasks.json`, `prompts/all_tools.md`), or the argument at fault
    inputs = [*case.files, *case.links, *case.copies]
    names = [str(sandbox), *(a for a in case.argv if len(a) > 1 and "{S}" not in a), *(repr(a) for a in case.argv),
             *(f"{Path(a)}: " for a in case.argv if "{S}" not in a),
             *("/".join(Path(name).parts[i:]) + end for name in inputs for i in range(1, len(Path(name).parts))
               for end in ": ")]
    why = clear_error(stderr, code, names)
    if why:
        first = next((line for line in stderr.split("\n") if line.strip()), "")
        return "unclear", f"{why}: {first[:300]!r}"
    after = _snapshot(sandbox)
    changed = sorted({name for name, _ in set(after.items()) ^ set(before.items())})
    allowed = [name for name in changed if code == 1 and name in case.may_write]
    if set(changed) - set(allowed):
        return "partial", f"changed: {changed[:5]}"
    if allowed and case.check and (problems := CHECKS[case.check](case, sandbox, stdout, stderr)):
        return "wrong", "; ".join(problems)[:3000]
    return "refused", ""


def _vm_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run_case(case: Case, timeout: float = CASE_TIMEOUT) -> Outcome:
    """Run `case` in a forked child with its own sandbox; the parent kills it after `timeout`."""
    sandbox = Path(tempfile.mkdtemp(prefix="jtau-fuzz-"))
    result_file = sandbox.with_suffix(".result")
    parent_rss, parent_vm = _rss_kb(), _vm_bytes()
    started = time.monotonic()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            _run_child(case, sandbox, result_file, parent_vm)
        except BaseException:  # noqa: BLE001 - the harness itself failed: say so
            with contextlib.suppress(Exception):
                result_file.write_bytes(pickle.dumps(Outcome("traceback", None, 0.0, 0.0, "",
                                                             "harness: " + traceback.format_exc()[-3000:],
                                                             case.note)))
            code = 3
        os._exit(code)
    try:
        status, usage = _wait(pid, timeout)
        seconds = time.monotonic() - started
        memory_mb = max(0.0, (usage.ru_maxrss - parent_rss) / 1024) if usage else 0.0
        cpu_seconds = usage.ru_utime + usage.ru_stime if usage else 0.0
        if status is None:
            return Outcome("hang", None, seconds, memory_mb, detail=f"killed after {timeout:.0f} s", note=case.note)
        if not result_file.is_file():
            return Outcome("traceback", None, seconds, memory_mb, detail=f"the child died: status {status}",
                           note=case.note)
        outcome = pickle.loads(result_file.read_bytes())
        outcome.memory_mb, outcome.cpu_seconds = memory_mb, cpu_seconds
        if outcome.outcome in ("ok", "refused") and memory_mb > MEMORY_BUDGET_MB:
            outcome.outcome, outcome.detail = "memory", f"{memory_mb:.0f} MB"
        return outcome
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
        result_file.unlink(missing_ok=True)


def _wait(pid: int, timeout: float):
    """(status, rusage) of the child, or (None, rusage) after killing it at `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            return None, usage
        time.sleep(0.005)
