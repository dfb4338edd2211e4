"""What jtau prints, as a user reads it in a pipe, a log and a terminal: whole values, and
whatever is shortened says how much is left out."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from conftest import GOLDEN_EXAMPLE, ROOT, in_terminal, jtau


def test_a_pipe_gets_whole_values_on_one_line_whatever_COLUMNS_says(tmp_path):
    out = tmp_path / ("a folder whose name is long enough to pass eighty columns on its own" + "-x" * 20)
    result = jtau("localize", "airline", "--offline", "--out", str(out), env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert re.search(rf"^ output +{re.escape(str(out / 'airline'))}\s*$", result.stdout, re.M), result.stdout
    assert "…" not in result.stdout
    distinct = next(line for line in result.stdout.splitlines() if line.startswith(" distinct values"))
    assert distinct.rstrip().endswith("user_id 500, zip 453")  # one line, not wrapped at 80


def test_a_narrow_terminal_folds_long_values_instead_of_cutting_them(tmp_path, domains_dir):
    code, shown = in_terminal("localize", "airline", "--check", columns=60)
    assert code == 0, shown
    assert "…" not in shown
    assert str(domains_dir / "airline").replace(" ", "") in re.sub(r"\s", "", shown)


def test_retention_wide_prints_every_number_in_a_pipe_and_on_a_narrow_terminal(tmp_path):
    example = subprocess.run([sys.executable, str(GOLDEN_EXAMPLE), str(tmp_path)],
                             capture_output=True, text=True)
    assert example.returncode == 0, example.stderr
    args = ("retention", "analyze", str(tmp_path / "golden_perturbed.jsonl"), "--wide", "--permutations", "100",
            "--bootstrap", "100")
    piped = jtau(*args, env={"COLUMNS": "80"})
    code, shown = in_terminal(*args, columns=60)
    for output in (piped.stdout, shown):
        assert "…" not in output and "ret matched [95% CI]" in output
        assert re.search(r"│ golden │ airline +│ 0 │ en→ja │ full +│ 43 │", output), output


def test_review_changed_since_says_how_many_changes_it_does_not_list(project, tmp_path):
    """An enforced glossary term renamed: every field holding it changed; the first 20 are
    listed, the line after says how many more the page holds."""
    (project / "data").mkdir()
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    assert jtau("localize", "airline", "--offline", root=project).returncode == 0
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "before"], cwd=project, check=True)
    glossary = project / "glossaries" / "ja.yaml"
    glossary.write_text(glossary.read_text().replace("economy:            {ja: エコノミー,",
                                                     "economy:            {ja: 普通席,"))
    assert jtau("localize", "airline", "--offline", root=project).returncode == 0
    review = jtau("review", "airline", "--changed-since", "HEAD", "--page-dir", str(tmp_path), root=project)
    assert review.returncode == 0, review.stderr
    lines = review.stdout.splitlines()
    total = int(re.fullmatch(r"airline: (\d+) text fields changed since HEAD; page .*", lines[-1])[1])
    assert total > 20 and len(lines) == 22
    assert lines[-2] == f"... and {total - 20} more (all in {tmp_path / 'airline.changes.html'})"
    page = (tmp_path / "airline.changes.html").read_text()
    assert page.count("<del>エコノミー</del>") == page.count("<ins>普通席</ins>") >= total  # the change, marked


def test_shortened_lists_and_texts_say_how_much_is_left_out():
    from jtau.util.listing import clip, first, joined

    assert first(range(3), 5) == ["0", "1", "2"]
    assert first(range(45), 40, "jtau review airline lists all")[-1] == "... and 5 more (jtau review airline lists all)"
    assert clip("x" * 70, 60) == "x" * 60 + "… (+10 characters)" and clip("short", 60) == "short"
    assert joined("abcdefg", 3) == "a, b, c and 4 more"
    from jtau.util.listing import counted

    assert (counted(1, "attempt"), counted(4, "attempt"), counted(0, "model")) == (
        "1 attempt", "4 attempts", "0 models")
    assert (counted(1, "entry", "entries"), counted(12697, "entry", "entries")) == ("1 entry", "12,697 entries")


def test_verify_on_a_terminal_shows_done_of_the_known_total_and_the_rate():
    # all 50 tasks, scored, in one worker (about 3 s): a rate shows after 1 s of counting, and 15
    # tasks, or 50 unscored, took less on a fast machine
    code, shown = in_terminal("verify", "airline", "--jobs", "1", columns=120)
    assert code == 0, shown
    frames = re.findall(r"airline: task \S+ \S* *(\d+)/(\S+)(?: +(\d+\.\d/s))?", shown)
    assert frames and all(total == "50" for _, total, _ in frames), frames  # never 568/?
    assert any(rate for _, _, rate in frames)


def test_localize_reports_as_news_only_the_entries_this_run_marks_stale(tmp_path):
    """Retail's memory keeps one stale entry: every run used to report it as news."""
    import json

    committed = [json.loads(line) for line in (ROOT / "data" / "tm" / "retail.jsonl").read_text().splitlines()]
    kept = sum(entry["status"] == "stale" for entry in committed)
    assert kept >= 1
    check = jtau("localize", "retail", "--check")
    assert check.returncode == 0, check.stderr
    assert re.search(rf"^ memory +{len(committed)} entries, {kept} stale \(kept", check.stdout, re.M)
    assert "newly stale" not in check.stdout

    tm = tmp_path / "tm"
    shutil.copytree(ROOT / "data" / "tm", tm)
    gone = {"key": "0000000000000000", "kind": "user", "status": "draft", "source": "Gone.", "target": "消えた。",
            "engine": "manual"}
    with (tm / "retail.jsonl").open("a") as memory:
        memory.write(json.dumps(gone, ensure_ascii=False) + "\n")
    for run, newly in ((1, 1), (2, 0)):
        report = tmp_path / f"report{run}.md"
        result = jtau("localize", "retail", "--offline", "--tm", str(tm), "--out", str(tmp_path / "out"),
                      "--report", str(report))
        assert result.returncode == 0, result.stderr
        assert (f"- memory entries gone stale in this run (their source no longer occurs): {newly}; "
                f"stale entries kept: {kept + 1}") in report.read_text()
        assert re.search(rf"^ memory +{len(committed) + 1} entries, {kept + 1} stale", result.stdout, re.M)
        assert bool(re.search(r"^ newly stale +1 entry whose source", result.stdout, re.M)) == (newly == 1), run


def test_no_passenger_count_where_no_tool_takes_passengers():
    for domain, shown in (("airline", True), ("retail", False), ("telecom", False)):
        result = jtau("validate", domain)
        assert result.returncode == 0, result.stderr
        assert bool(re.search(r"^ passengers matched +\d+", result.stdout, re.M)) == shown, domain


def test_the_qa_warnings_localize_counts_are_listed_in_its_report_and_by_validate(tmp_path):
    """Without memory or endpoint the text stays English: every field is a QA warning."""
    out, report = tmp_path / "out", tmp_path / "report.md"
    result = jtau("localize", "airline", "--tm", str(tmp_path / "tm"), "--out", str(out), "--report", str(report))
    assert result.returncode == 0, result.stderr
    count = int(re.search(rf"^ QA warnings +(\d+) \(listed in {re.escape(str(report))}\)", result.stdout, re.M)[1])
    assert count > 40
    details = report.read_text().split(f"<details><summary>QA warnings of airline ({count})</summary>")[1]
    listed = [line for line in details.splitlines() if line.startswith("- ")]
    assert len(listed) == count and all(": untranslated: " in line or ": English left: " in line for line in listed)
    validate = jtau("validate", "airline", "--out", str(out))
    assert validate.returncode == 0, validate.stderr
    assert f"QA warnings ({count}):" in validate.stdout
    assert f"  ... and {count - 40} more (jtau review airline --out {out} lists all)" in validate.stdout
    assert [line.strip() for line in validate.stdout.splitlines() if line.startswith("  tasks.json")] == \
        [line[2:] for line in listed if line.startswith("- tasks.json")][:40]


def test_localize_and_validate_end_with_their_result_and_the_next_command(tmp_path):
    written = jtau("localize", "airline", "--out", str(tmp_path))  # the Quick start command
    assert written.returncode == 0, written.stderr
    assert written.stdout.splitlines()[-1] == ("localize airline: airline written (5 files changed); next: jtau "
                                               f"verify airline --out {tmp_path} (replays every task in tau2, "
                                               "English and Japanese)")
    from conftest import banking_here

    check = jtau("localize", "all", "--check")
    which = "4 domains (airline, retail, telecom, banking_knowledge)" if banking_here() else \
        "3 domains (airline, retail, telecom)"
    assert check.stdout.splitlines()[-1] == (
        f"localize all --check: {which} up to date; "
        "next: jtau verify all (replays every task in tau2, English and Japanese)")
    validate = jtau("validate", "all")
    assert validate.returncode == 0, validate.stderr
    count = 4 if banking_here() else 3
    assert validate.stdout.splitlines()[-1].startswith(f"validate all: {count} domains, 0 errors, ")
    import json

    db = json.loads((tmp_path / "airline" / "db.json").read_text())
    db["users"]["misaki_kaneko_4397"]["payment_methods"]["gift_card_7773485"]["amount"] = 100  # not rate x source
    (tmp_path / "airline" / "db.json").write_text(json.dumps(db, ensure_ascii=False, indent=4) + "\n")
    broken = jtau("validate", "airline", "--out", str(tmp_path))
    assert broken.returncode == 1
    assert re.fullmatch(rf"validate airline: \d+ errors? in airline; next: jtau localize airline --out {tmp_path} "
                        r"\(writes it again from source, maps and memory\)", broken.stdout.splitlines()[-1])


def test_progress_lines_in_a_log_count_only_what_is_counted(monkeypatch, capsys):
    """A stage without a count shows its time; a count shows done/total, time and rate."""
    from jtau.cli import common

    clock = iter(range(0, 1000, 6))
    monkeypatch.setattr(common.time, "monotonic", lambda: next(clock))
    lines = []
    monkeypatch.setattr(common.err_console, "print", lambda text, **_: lines.append(str(text)))
    progress = common.LineProgress()
    task = progress.add_task("telecom: loading", total=None)
    progress.update(task, description="telecom: validating")
    progress.update(task, advance=1, total=50, description="telecom: task 1")
    progress.update(task, advance=1, description="telecom: task 2")
    assert lines == ["telecom: validating (6 s)",  # a stage: no count, no rate
                     "telecom: task 1 (1/50, 18 s, 0.2/s)",  # counted from the first advance (12 s)
                     "telecom: task 2 (2/50, 24 s, 0.2/s)"]


def test_a_rate_is_shown_only_once_it_means_something_and_a_count_ends_at_its_last_state(monkeypatch):
    """The first line of a count that starts as a line comes due: no rate (it read 43830.8/s);
    `localize all` in a log: the count's last state (4/4) is the last line, not 3/4."""
    from types import SimpleNamespace

    from jtau.cli import common

    now = [0.0]
    monkeypatch.setattr(common.time, "monotonic", lambda: now[0])
    lines = []
    monkeypatch.setattr(common.err_console, "print", lambda text, **_: lines.append(str(text)))
    with common.LineProgress() as progress:
        task = progress.add_task("localizing 4 domains", total=4)
        now[0] = 6.0
        progress.advance(task, 1)  # counting starts now, and a line is due now
        now[0] = 12.0
        progress.advance(task, 2)
        now[0] = 13.0
        progress.advance(task, 1)  # no line due: the last one was a second ago
    assert lines == ["localizing 4 domains (1/4, 6 s)", "localizing 4 domains (3/4, 12 s, 0.5/s)",
                     "localizing 4 domains (4/4, 13 s, 0.6/s)"]

    assert common.rate(500, 0.0004) == "" and common.rate(500, 2.0) == "250.0/s"
    import io

    from rich.console import Console

    monkeypatch.setattr(common, "err_console", Console(file=io.StringIO(), force_terminal=True))
    bar = common.progress_bar()
    column = next(c for c in bar.columns if type(c).__name__ == "RateColumn")
    counting = SimpleNamespace(id=0, total=1000, completed=8)
    now[0] = 100.0
    assert str(column.render(counting)) == ""  # first seen: its start
    counting.completed, now[0] = 508, 100.0005
    assert str(column.render(counting)) == ""  # rich's own estimate: 999999.9/s
    counting.completed, now[0] = 1008, 102.0
    assert str(column.render(counting)) == "500.0/s"


def test_what_jtau_prints_is_printed_as_written(tmp_path, capsys):
    """Locations and values keep their colons and brackets: rich's emoji codes made
    `edited.po:100:` print as `edited.po💯`."""
    import json

    from jtau.cli.common import done, say_error

    say_error("edited.po:1234: :ok: :id: [bold]x[/bold] [service_issue]")
    done("x.json:100: ok", "jtau :smile:")
    shown = capsys.readouterr()
    assert shown.err == "error: edited.po:1234: :ok: :id: [bold]x[/bold] [service_issue]\n"
    assert shown.out == "x.json:100: ok; next: jtau :smile:\n"

    entry = json.loads((ROOT / "data" / "tm" / "airline.jsonl").read_text().splitlines()[0])
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    padding = "# padding\n" * (98 - header.count("\n"))  # the unit's msgid on line 100
    unit = f'msgctxt "{entry["key"]}"\nmsgid {json.dumps(entry["source"])}\nmsgstr "Not Japanese at all."\n'
    edited = tmp_path / "edited.po"
    edited.write_text(header + padding + unit)
    assert (header + padding + unit).splitlines()[99].startswith("msgid ")
    result = jtau("tm", "import", "airline", str(edited), "--dry-run")
    assert result.returncode == 1, result.stderr
    assert f"  {edited}:100: {entry['key']} " in result.stderr, result.stderr
    assert "💯" not in result.stderr


def test_a_pipe_gets_no_padding_and_a_closed_pipe_ends_quietly():
    """Rich pads a table's lines to its width (~100 trailing spaces a line in a pipe); a reader
    that stops reading (`| head`) ends the command with 141, as a shell reports SIGPIPE, not
    with 1, the code of a validation failure, and without a traceback."""
    import os

    check = jtau("localize", "airline", "--check")
    assert check.returncode == 0, check.stderr
    assert [line for line in check.stdout.splitlines() if line != line.rstrip()] == []
    process = subprocess.Popen([sys.executable, "-m", "jtau", "validate", "all"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "JTAU_ROOT": str(ROOT)}, cwd=ROOT)
    process.stdout.readline()
    process.stdout.close()  # as head does after its lines
    assert process.wait(300) == 141
    assert "Traceback" not in process.stderr.read().decode()


def test_hints_and_advice_repeat_the_users_folders_quoted_for_the_shell(tmp_path):
    """A next step is runnable as printed and means the same folders: --out, --tm and --source
    are carried into every hint and "run:" (a hint used to verify data/domains after
    `localize --out X`, to export the committed memory after `--tm EMPTY`)."""
    import shlex

    out, tm = tmp_path / "my out", tmp_path / "empty tm"
    tm.mkdir()
    written = jtau("localize", "airline", "--out", str(out), "--tm", str(tm))
    assert written.returncode == 0, written.stderr
    export = f"jtau tm export airline -o FILE --tm {shlex.quote(str(tm))}"
    assert f"`{export}` lists them" in written.stderr
    assert written.stdout.splitlines()[-1].endswith(
        f"next: {export} (what a translator needs), then jtau tm import airline FILE --tm {shlex.quote(str(tm))}")
    assert re.search(rf"^ QA warnings +\d+ \(`--report FILE` lists them, so does "
                     rf"`jtau validate airline --out {re.escape(shlex.quote(str(out)))}`\)", written.stdout, re.M)
    offline = jtau("localize", "airline", "--offline", "--tm", str(tm), "--out", str(out))
    assert offline.returncode == 1
    assert offline.stderr.splitlines()[0].endswith(f"to list them all for translators, run: {export}")
    fresh = tmp_path / "fresh"
    for command in ("validate", "verify"):
        missing = jtau(command, "airline", "--out", str(fresh))
        assert missing.returncode == 2
        assert missing.stderr.rstrip().endswith(f"run: jtau localize airline --out {fresh}"), missing.stderr
    verified = jtau("verify", "airline", "--out", str(out), "--task", "1", "--no-rewards")
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.splitlines()[-1].endswith(  # jtau tau2 run reads data/domains: said, not implied
        f"(an agent on J-tau: on {ROOT / 'data' / 'domains'}'s data, not {out}'s)")
    stale = jtau("localize", "airline", "--check", "--out", str(out))
    assert stale.returncode == 1
    assert f"committed output is stale; run: jtau localize airline --out {shlex.quote(str(out))}\n" in stale.stderr


def test_review_out_is_the_domains_folder_as_everywhere(tmp_path):
    """`review --out` was the page's folder: `review airline --out <localized folder>` exited 0
    with a page of data/domains.  Now the page is of the folder's domain (with the memory it was
    made with), pages go to --page-dir, and a folder that holds another text is refused."""
    out, tm, pages = tmp_path / "out", tmp_path / "tm", tmp_path / "pages"
    tm.mkdir()
    assert jtau("localize", "airline", "--out", str(out), "--tm", str(tm)).returncode == 0
    other = jtau("review", "airline", "--out", str(out), "--page-dir", str(pages))
    assert other.returncode == 1 and not pages.exists()
    assert other.stderr.splitlines()[0].startswith(f"error: {out / 'airline'}: not what source, maps and memory")
    assert other.stderr.splitlines()[0].endswith(f"or, to bring it up to date, run: jtau localize airline --out {out}")
    made = jtau("review", "airline", "--out", str(out), "--tm", str(tm), "--page-dir", str(pages))
    assert made.returncode == 0, made.stderr
    page = (pages / "airline.html").read_text()
    assert "You are Emma Kim." in page and "あなたは金子 恵美です。" not in page  # the folder's (English) text
    nowhere = jtau("review", "airline", "--out", str(tmp_path / "none"), "--page-dir", str(pages))
    assert nowhere.returncode == 2
    assert nowhere.stderr.rstrip().endswith(f"run: jtau localize airline --out {tmp_path / 'none'}")


def test_the_changes_page_marks_what_changed_inside_a_text():
    """A long paragraph whose Japanese changed in one word: the page marks that word (by
    character: Japanese has no spaces), not the whole paragraph."""
    from jtau.review import marked

    old = "お客様の予約はエコノミーの航空券で、変更には手数料がかかります。" * 5
    new = old.replace("エコノミー", "普通席", 1)
    then, now = marked(old, new)
    assert then == old.replace("エコノミー", "<del>エコノミー</del>", 1)
    assert now == new.replace("普通席", "<ins>普通席</ins>", 1)
    assert marked("予約を変更できます。", "予約の変更ができます。") == \
        ("予約<del>を変更</del>できます。", "予約<ins>の変更が</ins>できます。")  # a two-character gap joins
    assert marked("<a & b>", "<a & c>") == ("&lt;a &amp; <del>b</del>&gt;", "&lt;a &amp; <ins>c</ins>&gt;")
