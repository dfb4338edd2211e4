"""Failure paths as a user meets them: one readable line, the documented exit code, no
traceback, nothing half-written."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys

from conftest import GOLDEN_EXAMPLE, ROOT, jtau
from forkserver import start_jtau


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr and lines and lines[0].startswith("error: "), stderr
    assert stderr.startswith("error: ") or not stderr.startswith("\n"), "no blank line before the error"
    return lines[0]


def test_an_unknown_task_id_is_a_usage_error_naming_the_known_range():
    result = jtau("verify", "airline", "--task", "999", "--no-rewards")
    assert result.returncode == 2
    assert one_error_line(result.stderr) == "error: airline has no task '999'; its 50 task ids run from '0' to '49'"


def test_a_memory_line_that_is_json_but_not_an_object_is_a_clean_input_error(tmp_path):
    for bad in ("[1,2,3]", "2", "null", '{"key": 1, "source": 2, "target": 3, "kind": "user", "status": "draft"}'):
        tm = tmp_path / "tm"
        tm.mkdir(exist_ok=True)
        (tm / "airline.jsonl").write_text(bad + "\n")
        result = jtau("localize", "airline", "--tm", str(tm), "--out", str(tmp_path / "out"))
        assert result.returncode == 2, bad
        assert f"{tm / 'airline.jsonl'}:1: not a translation-memory entry" in one_error_line(result.stderr)
        assert not (tmp_path / "out").exists()


def test_errors_print_user_data_literally_on_one_line(tmp_path):
    weird = tmp_path / "[red]memory[blink] :100: with a long name that would wrap at eighty columns in a terminal"
    weird.write_text("not a folder")
    result = jtau("localize", "airline", "--tm", str(weird), "--out", str(tmp_path / "out"),
                  env={"COLUMNS": "80"})
    assert result.returncode == 2
    assert one_error_line(result.stderr) == f"error: {weird}: --tm must be a folder"


def test_verify_shows_progress_in_a_log_and_says_what_ctrl_c_interrupted():
    env = {**os.environ, "JTAU_ROOT": str(ROOT)}
    with start_jtau(["verify", "telecom"], env, ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True) as process:
        first = process.stderr.readline()  # loading, then a progress line every 5 s, although piped
        # done/total (the total is known once replaying starts) and the rate, once it means something
        assert re.fullmatch(r"telecom: task \S+ \([1-9]\d*/2285, \d+ s(, \d+\.\d/s)?\)\n", first), first
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    lines = stderr.splitlines()
    assert lines[-1].startswith("error: interrupted: jtau verify telecom stopped after ")
    assert re.search(r" tasks?; nothing was written$", lines[-1]) and "Traceback" not in stderr


def test_an_output_that_cannot_be_written_fails_at_once_with_one_line(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("in the way")
    commands = [("localize", "airline", "--out", str(blocker / "out")),
                ("review", "airline", "--page-dir", str(blocker / "review")),
                ("tm", "export", "airline", "-o", str(blocker / "segments.jsonl")),
                ("verify", "airline", "--task", "1", "--no-rewards", "--json", str(blocker / "verify.json")),
                ("retention", "analyze", str(ROOT / "README.md"), "--json", str(blocker / "r.json"))]
    for args in commands:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = jtau(*args)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert result.returncode == 2, args
        assert one_error_line(result.stderr).startswith(f"error: {blocker}: is a file, not a folder"), args
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        assert cpu < 20, args  # before the long work, not after it (CPU time: a busy machine waits, it does not work)


def test_an_output_under_a_folder_nobody_can_write_names_the_path_asked_for():
    result = jtau("localize", "airline", "--offline", "--out", "/proc/jtau/out")  # /proc: not even root
    assert result.returncode == 2
    assert one_error_line(result.stderr).startswith(
        "error: /proc/jtau/out: cannot write (in /proc, the nearest folder that exists): ")


def immutable(path):
    """chattr +i: even root cannot replace or rename it (a real unreplaceable file)."""
    import shutil

    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
        import pytest

        pytest.skip("this filesystem has no immutable attribute (chattr)")
    return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_domain_folder_that_cannot_be_replaced_stays_entirely_old(tmp_path):
    import shutil

    out = tmp_path / "out"
    shutil.copytree(ROOT / "data" / "domains" / "airline", out / "airline")
    (out / "airline" / "db.json").write_text("{}\n")  # stale, so localize must replace the folder
    before = {p.name: p.read_bytes() for p in (out / "airline").iterdir()}
    release = immutable(out / "airline")
    try:
        result = jtau("localize", "airline", "--out", str(out))
    finally:
        release()
    assert result.returncode == 2
    assert one_error_line(result.stderr).endswith("nothing was changed")
    assert {p.name: p.read_bytes() for p in (out / "airline").iterdir()} == before
    assert sorted(p.name for p in out.iterdir()) == ["airline"]  # no staging folder left behind


def test_a_memory_that_cannot_be_replaced_leaves_the_output_untouched(tmp_path):
    import shutil

    tm = tmp_path / "tm"
    shutil.copytree(ROOT / "data" / "tm", tm)
    memory = tm / "airline.jsonl"
    memory.write_text("".join(reversed(memory.read_text().splitlines(keepends=True))))  # same entries, other order
    release = immutable(memory)
    try:
        result = jtau("localize", "airline", "--tm", str(tm), "--out", str(tmp_path / "out"))
    finally:
        release()
    assert result.returncode == 2
    assert "cannot write the translation memory" in one_error_line(result.stderr)
    assert not (tmp_path / "out").exists()


def test_a_dead_endpoint_stops_the_run_after_a_few_requests(tmp_path):
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        server.script = ["500"] * 1000  # every request fails, whatever it asks
        result = jtau("localize", "airline", "--tm", str(tmp_path / "tm"), "--out", str(tmp_path / "out"),
                      env={"JTAU_MODEL": "fake-model", "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-x"})
        sent = len(server.received)
    assert result.returncode == 2
    line = one_error_line(result.stderr)
    assert "the endpoint failed 5 requests in a row (last: HTTP 500)" in line
    assert sent <= 10, sent  # was 280 before the circuit breaker
    assert not (tmp_path / "out").exists()


def test_retention_report_is_readable_at_80_columns_and_in_a_pipe(tmp_path):
    example = subprocess.run([sys.executable, str(GOLDEN_EXAMPLE), str(tmp_path)],
                             capture_output=True, text=True)
    assert example.returncode == 0, example.stderr
    result = jtau("retention", "analyze", str(tmp_path / "golden_perturbed.jsonl"), "--permutations", "100",
                  "--bootstrap", "100", env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines) and "…" not in result.stdout
    assert "\x1b[" not in result.stdout and "│" not in result.stdout  # plain text in a pipe
    full = next(line for line in lines if line.startswith("full"))
    assert full.split()[1:5] == ["43", "1.000", "0.667", "0.667"]


def test_task_ids_with_brackets_print_literally():
    task = "[service_issue]airplane_mode_on[PERSONA:None]"
    result = jtau("verify", "telecom", "--task", task, "--no-rewards")
    assert result.returncode == 0, result.stderr
    assert task in result.stdout and "1/1 tasks commute" in result.stdout


def test_output_piped_into_a_reader_that_stops_early_ends_quietly():
    result = subprocess.run(f"'{sys.executable}' -m jtau validate airline | head -1", shell=True, cwd=ROOT,
                            capture_output=True, text=True, env={**os.environ, "JTAU_ROOT": str(ROOT)})
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr


def test_an_old_folder_that_cannot_be_removed_is_named_and_in_no_later_runs_way(tmp_path):
    """The swap succeeded but the old folder holds an immutable file: the run says where the old
    folder stays and why; the next runs replace the domain all the same."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(ROOT / "data" / "domains" / "airline", out / "airline")
    (out / "airline" / "db.json").write_text("{}\n")  # stale, so localize replaces the folder
    immutable(out / "airline" / "policy.md")  # moves with the old folder
    try:
        first = jtau("localize", "airline", "--offline", "--out", str(out))
        assert first.returncode == 0, first.stderr
        [old] = [p for p in out.iterdir() if p.name != "airline"]
        assert old.name.startswith(".airline.old-") and (old / "policy.md").is_file()
        assert (f"warning: {out / 'airline'}: the old folder {old} could not be removed ({old / 'policy.md'}: "
                "Operation not permitted); remove it when you can, jtau does not need it") in first.stderr
        source_db = (ROOT / "data" / "domains" / "airline" / "db.json").read_bytes()
        assert (out / "airline" / "db.json").read_bytes() == source_db
        (out / "airline" / "db.json").write_text("{}\n")
        second = jtau("localize", "airline", "--offline", "--out", str(out))  # used to refuse: "nothing was changed"
        assert second.returncode == 0, second.stderr
        assert f"the old folder {old} could not be removed" in second.stderr
        assert (out / "airline" / "db.json").read_bytes() == source_db
    finally:
        for path in out.glob(".airline.old*/policy.md"):
            subprocess.run(["chattr", "-i", str(path)], check=True)
    third = jtau("localize", "airline", "--offline", "--out", str(out))  # nothing to write: the old folder goes
    assert third.returncode == 0 and "warning" not in third.stderr, third.stderr
    assert sorted(p.name for p in out.iterdir()) == ["airline"]


def test_a_folder_left_by_an_earlier_run_is_removed_or_named(tmp_path, monkeypatch):
    """Simulated (any filesystem): an earlier run's `.airline.old` that cannot be removed is
    named and does not stop the swap; once it can be removed, it is."""
    from jtau.util import files

    folder = tmp_path / "airline"
    folder.mkdir()
    (folder / "a.json").write_text("old\n")
    left = tmp_path / ".airline.old"
    left.mkdir()
    (left / "a.json").write_text("older\n")
    notes = []
    monkeypatch.setattr(files, "remove_folder", lambda path: "a.json: Operation not permitted" if path == left
                        else shutil.rmtree(path))
    import shutil

    assert files.replace_folder(folder, {"a.json": b"new\n"}, warn=notes.append) == ["a.json"]
    assert (folder / "a.json").read_text() == "new\n"
    assert notes == [f"{folder}: the old folder {left} could not be removed (a.json: Operation not permitted); "
                     "remove it when you can, jtau does not need it"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".airline.old", "airline"]
    monkeypatch.undo()
    notes.clear()
    assert files.replace_folder(folder, {"a.json": b"new\n"}, warn=notes.append) == []
    assert notes == [] and sorted(p.name for p in tmp_path.iterdir()) == ["airline"]


def test_plot_without_matplotlib_fails_before_the_analysis_and_names_a_real_install(tmp_path):
    """It failed after the whole analysis and suggested `pip install 'jtau[plot]'`, which PyPI
    does not have."""
    traces = tmp_path / "traces.jsonl"
    traces.write_text("")  # the analysis would refuse it: the check comes first
    hide = ("import sys, runpy; sys.modules['matplotlib'] = None; "
            "sys.argv = ['jtau', *sys.argv[1:]]; runpy.run_module('jtau', run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", hide, "retention", "analyze", str(traces), "--plot",
                             str(tmp_path / "r.png")], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "JTAU_ROOT": str(ROOT)})
    assert result.returncode == 2
    assert one_error_line(result.stderr) == "error: --plot needs matplotlib: pip install matplotlib"
