"""`jtau ARGS` for the tests as `python -m jtau ARGS` runs it, without paying for Python's start
and the third-party imports (tau2 with litellm) in each of the suite's ~200 commands.

A fork server: one process per pytest worker that has imported the third-party packages jtau
uses, but never jtau.  Each command is a fork of it that takes the command's environment,
folder, arguments and standard streams (files: no pipe to fill), imports jtau afresh and runs
`python -m jtau` through runpy.  It leaves as an interpreter does (non-daemon threads joined,
atexit run, streams flushed), except that it skips the teardown of every module, which takes
longer than most commands.  The server is single-threaded (a safe fork) and never runs a
command itself, so no command sees another's state.  Its preloaded objects are frozen out
of the cyclic collector (gc.freeze): a command that never imports tau2 would otherwise walk
them in every collection, which `python -m jtau` of that command never holds
(docs/DEVELOPING.md has the measurement).

`start_jtau` is the part of subprocess.Popen the tests use (pid, signals, pipes read as the
command writes, a pseudo-terminal): the child names its pid once its streams are open, and the
command holds the server until it is waited for.

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
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PRELOAD = ("typer", "rich.console", "rich.progress", "pydantic", "yaml", "ruamel.yaml", "orjson", "jsonschema",
           "jsonschema_rs", "jsonpatch", "tomllib", "openai", "pandas", "rapidfuzz", "translate.storage.po",
           "translate.storage.xliff", "translate.storage.tmx", "tau2.run", "tau2.registry", "tau2.evaluator.evaluator")

_SERVER = r"""
import atexit, gc, json, os, runpy, signal, sys, threading
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from loguru import logger
logger.disable("tau2")  # as jtau.runtime does before it imports tau2
for name in json.loads(sys.argv[1]):
    try:
        __import__(name)
    except Exception:  # not installed here (26.3 or 1.0.1): the command imports what it needs
        pass
assert not any(m == "jtau" or m.startswith("jtau.") for m in sys.modules), "the server imported jtau"
gc.collect()
gc.freeze()  # the preloaded modules' objects: a command's collections skip them, as a fresh process has fewer
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
    replies.write(f"exit {os.waitstatus_to_exitcode(status)}\n")
    replies.flush()
# the child: the command, as `python -m jtau` with this environment, folder and streams
os.environ.clear()
os.environ.update(request["env"])
os.chdir(request["cwd"])
sys.path[0] = request["cwd"]
for fd, path in enumerate(request["streams"]):  # files, pipes (FIFOs) or a terminal
    target = os.open(path, os.O_RDWR if path.startswith("/dev/pts/") else (os.O_RDONLY if fd == 0 else os.O_WRONLY))
    os.dup2(target, fd)
    os.close(target)
replies.write(f"pid {os.getpid()}\n")
replies.close()
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
PIPE = subprocess.PIPE


class ForkServer:
    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.env: dict[str, str] = {}  # the server's: the worker's when the first command ran
        self.lock = threading.Lock()  # one command at a time: held from its start until it is waited for
        self.pending = b""  # what the server replied beyond the line read
        atexit.register(self.stop)

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a command with `env` runs in the server as in a fresh interpreter."""
        if self.process is None:
            self.env = dict(os.environ)
        changed = {key for key in env.keys() | self.env.keys() if env.get(key) != self.env.get(key)}
        return env.get("JTAU_TEST_SUBPROCESS") != "1" and not any(key.startswith(READ_AT_START) for key in changed)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(30)

    def request(self, args, env: dict[str, str], cwd: Path, streams: list[str]) -> int:
        """Send one command (the caller holds the lock); its pid, once its streams are open."""
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, "-c", _SERVER, json.dumps(PRELOAD)], env=self.env,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
            self.pending = b""
        self.process.stdin.write((json.dumps({"args": list(args), "env": env, "cwd": str(cwd),
                                              "streams": streams}) + "\n").encode())
        return int(self.reply("pid", None))

    def reply(self, kind: str, timeout: float | None) -> str:
        """The server's next line, `kind VALUE`: VALUE (subprocess.TimeoutExpired after `timeout`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                raise subprocess.TimeoutExpired(["jtau"], timeout)
            data = os.read(fd, 4096)
            if not data:
                raise RuntimeError("the jtau fork server died")
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        name, value = line.decode().split(" ", 1)
        assert name == kind, line
        return value


class Command:
    """`python -m jtau ARGS` running in the fork server, as subprocess.Popen has it: `pid`,
    `stdout`/`stderr` (PIPE: read as the command writes them), `send_signal`, `poll`, `wait`,
    `communicate`; a context manager that kills and waits for what is still running."""

    def __init__(self, server: ForkServer, args, env: dict[str, str], cwd: Path, stdin=None, stdout=None,
                 stderr=None, text: bool = False):
        self.server, self.returncode = server, None
        self.folder: Path | None = None  # the FIFOs' folder, where a stream is PIPE
        self.stdout, self.stderr = None, None
        streams, readers, keep_open = [], {}, []
        for fd, given in enumerate((stdin, stdout, stderr)):
            if given is None:
                streams.append(os.devnull)
            elif given == PIPE:  # a FIFO, open at both ends here until the command has opened its end
                assert fd > 0, "stdin=PIPE: no test writes to a command"
                self.folder = self.folder or Path(tempfile.mkdtemp(prefix="jtau-run-"))
                path = self.folder / f"fd{fd}"
                os.mkfifo(path)
                readers[fd] = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                keep_open.append(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                streams.append(str(path))
            elif isinstance(given, int):  # a terminal's end (pty.openpty)
                streams.append(os.ttyname(given))
            else:
                streams.append(str(given))
        server.lock.acquire()
        try:
            self.pid = server.request(args, env, cwd, streams)
        except BaseException:
            server.lock.release()
            raise
        finally:
            for fd in keep_open:
                os.close(fd)
        for fd, reader in readers.items():
            os.set_blocking(reader, True)
            stream = os.fdopen(reader, "rb")
            if text:
                stream = io.TextIOWrapper(stream, encoding=locale.getpreferredencoding(False))
            setattr(self, ("stdout", "stderr")[fd - 1], stream)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.wait(0)
            except subprocess.TimeoutExpired:
                pass
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit code (subprocess.TimeoutExpired while it runs); then the server is free again."""
        if self.returncode is None:
            try:
                self.returncode = int(self.server.reply("exit", timeout))
            except subprocess.TimeoutExpired:
                raise
            except BaseException:  # the server died: no command of this worker may wait for it
                self._release()
                raise
            self._release()
        return self.returncode

    def _release(self) -> None:
        self.server.lock.release()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def communicate(self, timeout: float | None = None):
        """Everything left on stdout and stderr (read at once, so neither pipe fills), then wait."""
        read = {}
        threads = [threading.Thread(target=lambda name=name, stream=stream: read.__setitem__(name, stream.read()))
                   for name, stream in (("stdout", self.stdout), ("stderr", self.stderr)) if stream is not None]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout)
        self.wait(timeout)
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        return read.get("stdout"), read.get("stderr")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.returncode is None:
            self.kill()
            self.wait()
        for stream in (self.stdout, self.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def _text(path: Path) -> str:
    """What `subprocess.run(..., text=True)` reads: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding=locale.getpreferredencoding(False)).read()


_server = ForkServer()


def run_jtau(args, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """`python -m jtau ARGS` in `cwd` with exactly `env`: through the fork server where it can."""
    if not _server.serves(env):
        return subprocess.run([sys.executable, "-m", "jtau", *args], capture_output=True, text=True, env=env, cwd=cwd)
    with tempfile.TemporaryDirectory(prefix="jtau-run-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        out.touch()
        err.touch()
        with Command(_server, args, env, cwd, stdout=out, stderr=err) as command:
            code = command.wait()
        return subprocess.CompletedProcess(["jtau", *args], code, _text(out), _text(err))


def start_jtau(args, env: dict[str, str], cwd: Path, stdin=None, stdout=None, stderr=None, text: bool = False
               ) -> Command | subprocess.Popen:
    """`subprocess.Popen([python, -m, jtau, *args], ...)` through the fork server where it can: a
    stream is None (/dev/null here, inherited there), PIPE, or a terminal's end (pty.openpty).
    Use it in a `with`: the server runs nothing else until the command is waited for."""
    if not _server.serves(env):
        return subprocess.Popen([sys.executable, "-m", "jtau", *args], stdin=stdin, stdout=stdout, stderr=stderr,
                                text=text, env=env, cwd=cwd)
    return Command(_server, args, env, cwd, stdin, stdout, stderr, text)
