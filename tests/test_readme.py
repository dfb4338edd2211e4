"""The README's two commands stay true: CI runs exactly the test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    return re.findall(r"```sh\n(.+?)\n```", (ROOT / "README.md").read_text())


def test_readme_has_the_two_newcomer_commands():
    commands = readme_commands()
    assert commands[0].endswith("jtau localize airline")
    assert commands[1].endswith("pytest -q")


def test_ci_runs_the_readme_test_command():
    assert readme_commands()[1] in (ROOT / ".ci" / "run").read_text().splitlines()


def test_after_the_quick_start_the_readme_says_what_to_do_next():
    """The steps after the Quick start are real commands, and the one the Quick start command
    prints as next is among them."""
    import os
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text()
    steps = text.split("**Next**", 1)[1].split("## Commands", 1)[0]
    commands = re.findall(r"`\.venv/bin/jtau ([a-z0-9]+) ([^`]*)`", steps)
    assert [c for c, _ in commands] == ["validate", "verify", "review", "tau2"]
    env = {**os.environ, "JTAU_ROOT": str(ROOT)}
    for command, _ in commands[:3]:
        shown = subprocess.run([sys.executable, "-m", "jtau", command, "--help"], capture_output=True, text=True,
                               env=env)
        assert shown.returncode == 0, command
    written = subprocess.run([sys.executable, "-m", "jtau", "localize", "airline", "--check"], capture_output=True,
                             text=True, env=env)
    following = re.search(r"; next: (jtau [a-z]+ \w+)", written.stdout.splitlines()[-1])[1]
    assert f"`.venv/bin/{following}`" in steps
