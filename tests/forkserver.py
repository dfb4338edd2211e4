"""`jtau ARGS` for the tests as `python -m jtau ARGS` runs it, without paying for Python's start
and the third-party imports (tau2 with litellm: about 2 s) in each of the suite's ~200 commands.

A fork server: one process per pytest worker that has imported the third-party packages jtau
uses, but never jtau.  Each command is a fork of it that takes the command's environment,
folder, arguments and standard streams (files: no pipe to fill), imports jtau afresh and runs
`python -m jtau` through runpy.  It leaves as an interpreter does (non-daemon threads joined,
atexit run, streams flushed), except that it skips the teardown of every module, which takes
longer than most commands.  The server is single-threaded (a safe fork) and never runs a
command itself, so no command sees another's state.

A command whose environment changes what the interpreter or those packages read once
(PYTHONPATH, TAU2_DATA_DIR, ...) runs as a real subprocess, and so does every command when
JTAU_TEST_SUBPROCESS=1 (to tell a test's failure from the server's).
"""

from __future__ import annotations

import atexit
import io
import json
import locale
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

PRELOAD = ("typer", "rich.console", "rich.progress", "pydantic", "yaml", "orjson", "jsonschema", "openai", "pandas",
           "tau2.run", "tau2.registry", "tau2.evaluator.evaluator")

_SERVER = r"""
import atexit, json, os, runpy, signal, sys, threading
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from loguru import logger
logger.disable("tau2")  # as jtau.runtime does before it imports tau2
for name in json.loads(sys.argv[1]):
    try:
        __import__(name)
    except Exception:  # not installed here (26.3 or 1.0.1): the command imports what it needs
        pass
assert not any(m == "jtau" or m.startswith("jtau.") for m in sys.modules), "the server imported jtau"
requests, replies = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "w")
while True:
    line = requests.readline()
    if not line:
        raise SystemExit(0)
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        break
    _, status = os.waitpid(pid, 0)
    replies.write(f"{os.waitstatus_to_exitcode(status)}\n")
    replies.flush()
# the child: the command, as `python -m jtau` with this environment, folder and streams
replies.close()
os.environ.clear()
os.environ.update(request["env"])
os.chdir(request["cwd"])
sys.path[0] = request["cwd"]
for fd, (path, flags) in enumerate([(os.devnull, os.O_RDONLY), (request["out"], os.O_WRONLY),
                                    (request["err"], os.O_WRONLY)]):
    target = os.open(path, flags)
    os.dup2(target, fd)
    os.close(target)
sys.argv = ["jtau", *request["args"]]
code = 0
try:
    runpy.run_module("jtau", run_name="__main__", alter_sys=True)
except SystemExit as exc:  # as the interpreter reads it
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if exc.code is not None and not isinstance(exc.code, int):
        print(exc.code, file=sys.stderr)
except BaseException as exc:
    sys.excepthook(type(exc), exc, exc.__traceback__)
    code = 1
    if isinstance(exc, KeyboardInterrupt):  # the interpreter dies of the signal
        code = -signal.SIGINT
# leave as the interpreter does, without tearing down every module the server imported
threading._shutdown()
atexit._run_exitfuncs()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except Exception:
        pass
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
os._exit(code & 0xFF)
"""

# what the interpreter and the preloaded packages read once, at their start or import
READ_AT_START = ("PYTHON", "TAU2_", "LITELLM_")


class ForkServer:
    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.env: dict[str, str] = {}  # the server's: the worker's when the first command ran
        self.lock = threading.Lock()  # one command at a time on the server's pipes
        atexit.register(self.stop)

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a command with `env` runs in the server as in a fresh interpreter."""
        if self.process is None:
            self.env = dict(os.environ)
        changed = {key for key in env.keys() | self.env.keys() if env.get(key) != self.env.get(key)}
        return env.get("JTAU_TEST_SUBPROCESS") != "1" and not any(key.startswith(READ_AT_START) for key in changed)

    def start(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, "-c", _SERVER, json.dumps(PRELOAD)], env=self.env,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self.process

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(30)

    def run(self, args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory(prefix="jtau-run-") as folder:
            out, err = Path(folder) / "stdout", Path(folder) / "stderr"
            out.touch()
            err.touch()
            with self.lock:
                server = self.start()
                server.stdin.write(json.dumps({"args": list(args), "env": env, "cwd": str(cwd), "out": str(out),
                                               "err": str(err)}) + "\n")
                server.stdin.flush()
                reply = server.stdout.readline()
            if not reply:
                raise RuntimeError("the jtau fork server died")
            return subprocess.CompletedProcess(["jtau", *args], int(reply), _text(out), _text(err))


def _text(path: Path) -> str:
    """What `subprocess.run(..., text=True)` reads: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding=locale.getpreferredencoding(False)).read()


_server = ForkServer()


def run_jtau(args, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """`python -m jtau ARGS` in `cwd` with exactly `env`: through the fork server where it can."""
    if not _server.serves(env):
        return subprocess.run([sys.executable, "-m", "jtau", *args], capture_output=True, text=True, env=env, cwd=cwd)
    return _server.run(args, env, cwd)
