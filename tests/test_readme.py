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
