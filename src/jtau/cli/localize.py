"""`jtau localize`, `jtau validate`, `jtau review`: make, check and show a J-tau domain."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.text import Text

from jtau.cli.common import (
    DomainArg,
    Folders,
    OutOpt,
    SourceOpt,
    TmOpt,
    app,
    arm_named,
    checked_path,
    domains,
    done,
    err_console,
    facts,
    fail,
    out_console,
    out_dir,
    progress_bar,
    several,
)
from jtau.errors import InputError, JtauError, OutOfDate
from jtau.project import Project
from jtau.util.listing import counted, first


def plan(domain: str, source: Path | None, tm: Path | None, validate: bool = True):
    """Run the pipeline without an endpoint: what the memory lacks, the outputs it gives now and
    (`validate`) their checks."""
    from jtau.pipeline import Options
    from jtau.pipeline import localize as run

    return run(domain, Project.find(), source, None, Options(tm=tm, dry_run=True, validate=validate))


class _Progress:
    """Stage names on a spinner, and a bar while segments are being translated."""

    STEPS = {"load": "swapping entities", "swap": "building templates", "templates": "translating",
             "translate": "rendering", "render": "validating", "validate": "done"}

    def __init__(self, progress, name: str):
        self.progress, self.name = progress, name
        self.task = progress.add_task(f"{name}: loading source and maps", total=None)

    def stage(self, stage: str) -> None:
        self.progress.update(self.task, description=f"{self.name}: {self.STEPS.get(stage, stage)}")

    def start(self, total: int) -> None:
        self.progress.update(self.task, description=f"{self.name}: translating {total} segments",
                             total=total, completed=0)

    def advance(self, count: int) -> None:
        self.progress.advance(self.task, count)


@app.command()
def localize(
    domain: DomainArg,
    source: SourceOpt = None,
    out: OutOpt = None,
    tm: Annotated[Optional[Path], typer.Option(
        "--tm", callback=checked_path,
        help="Translation memory folder. Default: data/tm. An empty folder means: translate everything.")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 if the output on disk is stale.")] = False,
    offline: Annotated[bool, typer.Option(
        "--offline", help="Never contact an endpoint; exit 1 listing the segments the memory lacks.")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Say how many segments and characters would be sent; send and write nothing.")] = False,
    model: Annotated[Optional[str], typer.Option("--model", help="Model name. Default: $JTAU_MODEL.")] = None,
    base_url: Annotated[Optional[str], typer.Option(
        "--base-url", help="OpenAI-compatible endpoint. Default: $OPENAI_BASE_URL (key: $OPENAI_API_KEY).")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Requests in flight at once.")] = 4,
    batch_size: Annotated[int, typer.Option(min=1, max=100, help="Segments per request.")] = 8,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds before a request times out.")] = 60.0,
    attempts: Annotated[int, typer.Option(min=1, max=20, help="Tries per segment before it is reported.")] = 4,
    report: Annotated[Optional[Path], typer.Option(
        "--report", callback=checked_path,
        help="Also write what changed (segments, stale entries, files) as Markdown.")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", min=1, help="Domains localized at once by `all` (worker processes). Default: one per CPU "
        "when nothing is sent to an endpoint, else 1.")] = None,
    arm: Annotated[str, typer.Option(
        "--arm", help="What to localize (docs/ARMS.md): ja (J-tau, written under data/domains/), or ja-text, "
                      "ja-entities, en (built offline into the arms' cache, or --out DIR).")] = "ja",
) -> None:
    """Localize a domain: swap entities, translate free text, validate, write under data/domains/."""
    from jtau.arms import JTAU_ARM
    from jtau.pipeline import Options
    from jtau.translate.client import Settings, endpoint_from_env

    names: list[str] = []
    folders = Folders(source, out, tm)
    try:
        project = Project.find()
        arm = arm_named(arm)
        if arm != JTAU_ARM:
            _localize_arm(domain, arm, project, source, out, check or dry_run or report is not None or tm is not None)
            return
        options = Options(tm=tm, offline=offline, dry_run=dry_run,
                          endpoint=endpoint_from_env(model, base_url),
                          settings=Settings(concurrency=concurrency, batch_size=batch_size,
                                            timeout=timeout, attempts=attempts))
        names = several(domains(domain), source)
        from jtau.util.files import ensure_writable

        if not (check or dry_run):  # an output that cannot be written fails now, not after the work
            from jtau.project import refuse_installed

            for name in names:
                refuse_installed(out_dir(out, project, name), "jtau localize", "--out DIR")
                ensure_writable(out_dir(out, project, name).parent)
        if report:
            ensure_writable(report, folder=False)
        reports, written, untranslated = [], 0, 0
        translating = options.endpoint is not None and not (offline or dry_run)
        workers = min(jobs or (1 if translating else os.cpu_count() or 1), len(names))
        for run_ in _runs(names, project, folders, options, check, report, workers):
            if run_.dry_run:
                out_console.print(run_.dry_run)
                continue
            written += run_.written
            untranslated += run_.untranslated
            _print_summary(run_)
            for note in run_.notes:
                err_console.print(Text(f"warning: {note}"), soft_wrap=True)
            if report:
                reports.append(run_.report)
            if run_.untranslated:
                err_console.print(Text(
                    f"warning: {run_.name}: {counted(run_.untranslated, 'segment')} stay English: no endpoint is "
                    "configured (set JTAU_MODEL and OPENAI_BASE_URL) and the memory lacks them; "
                    f"`{folders.command('tm', 'export', run_.name, '-o', 'FILE')}` lists them"), soft_wrap=True)
        if report:
            from jtau.util.files import atomic_write

            atomic_write(report, "\n".join(reports).encode("utf-8"))
        _last_line(domain, names, folders, check, dry_run, written, untranslated)
    except JtauError as exc:
        fail(exc, folders)
    except KeyboardInterrupt:
        written_what = ("nothing written" if len(names) <= 1 else
                        "each domain is written whole or not at all (those finished before it are written)")
        err_console.print(f"interrupted: {written_what}; translations received so far are kept in the "
                          "memory's journal and a new run resumes from them")
        # exit now: Python would otherwise wait for the translation threads' requests in flight
        # (up to --timeout); the journal is fsynced and outputs are only ever written atomically
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)


def _localize_arm(domain: str, arm: str, project: Project, source: Path | None, out: Path | None,
                  refused: bool) -> None:
    """`jtau localize DOMAIN --arm ARM`: build an arm (offline) into the cache or `out`; say where."""
    from jtau.arm_cache import arm_folder, build

    if refused:
        raise InputError("--arm builds an arm from the committed memory, offline: --check, --dry-run, --report and "
                         "--tm are J-tau's (--arm ja)")
    names = several(domains(domain), source)
    folders = []
    for name in names:
        with progress_bar() as bar:
            bar.add_task(f"{name}: building arm {arm}", total=None)
            if out:
                folder = out_dir(out, project, name)
                build(name, arm, project, source, folder)
            else:
                folder = arm_folder(name, arm, project, source)
        out_console.print(f"{name} --arm {arm}: {folder}", soft_wrap=True, highlight=False)
        folders.append(folder)
    done(f"localize {domain} --arm {arm}: {len(folders)} folder{'s' * (len(folders) != 1)} built or up to date",
         f"jtau verify {domain} --arm {arm} (replays every task in tau2 on the arm)")


@dataclass
class DomainRun:
    """What one domain's localize run has to say: plain data, so a worker process can return it."""
    name: str
    rows: list[tuple[str, str, str | None]] = field(default_factory=list)  # summary: key, value, style
    notes: list[str] = field(default_factory=list)
    written: int = 0
    untranslated: int = 0
    report: str = ""
    dry_run: str = ""


def _localize_one(name: str, project: Project, folders: Folders, options, check: bool, report: Path | None,
                  progress=None) -> DomainRun:
    """Localize, check or write one domain; what it did, as a DomainRun."""
    from jtau.pipeline import finish
    from jtau.pipeline import localize as run

    result = run(name, project, folders.source, progress, options)
    if options.dry_run:
        return DomainRun(name, dry_run=_dry_run_line(result))
    target = out_dir(folders.out, project, name)
    if report:
        from jtau.changes import files_on_disk, text_changes

        changes = text_changes(result, files_on_disk(target, result.outputs))
    changed = finish(result, target, check)
    markdown = ""
    if report:
        from jtau.changes import report_markdown

        markdown = report_markdown(result, changes, changed)
    rows = _summary_rows(result, target, folders, changed, check, report)
    return DomainRun(name, rows, list(result.notes), len(changed), result.translation.untranslated, markdown)


def _runs(names: list[str], project: Project, folders: Folders, options, check: bool, report: Path | None,
          workers: int):
    """Each domain's DomainRun, in the order of `names`: one after the other with its progress
    bar, or (`workers` > 1: `all` without an endpoint) that many domains at once in worker
    processes, a bar counting the domains done.  A domain that fails raises its error after the
    domains before it are reported."""
    if workers <= 1:
        for name in names:
            with progress_bar() as bar:
                yield _localize_one(name, project, folders, options, check, report, _Progress(bar, name))
        return
    from jtau.util.processes import in_processes

    with progress_bar() as bar:
        task = bar.add_task(f"localizing {len(names)} domains, {workers} at a time", total=len(names))
        futures = in_processes(_localize_one, [(name, project, folders, options, check, report) for name in names],
                               workers, lambda: bar.advance(task, 1))
    for future in futures:
        yield future.result()


def _last_line(domain: str, names: list[str], folders: Folders, check: bool, dry_run: bool, written: int,
               untranslated: int) -> None:
    """One line of result and the next useful command, on the user's folders."""
    which = names[0] if len(names) == 1 else f"{len(names)} domains ({', '.join(names)})"
    one = names[0] if len(names) == 1 else "DOMAIN"
    if dry_run:
        done(f"localize {domain} --dry-run: nothing sent or written",
             f"{folders.command('localize', domain)} with JTAU_MODEL and OPENAI_BASE_URL set, or "
             f"{folders.command('tm', 'export', one, '-o', 'FILE')} for translators")
    elif untranslated:
        state = "up to date" if check else "written"
        done(f"localize {domain}{' --check' if check else ''}: {which} {state}, "
             f"{counted(untranslated, 'segment')} still English",
             f"{folders.command('tm', 'export', one, '-o', 'FILE')} (what a translator needs), then "
             f"{folders.command('tm', 'import', one, 'FILE')}")
    else:
        state = "up to date" if check else f"written ({counted(written, 'file')} changed)" if written else \
            "written (nothing changed)"
        done(f"localize {domain}{' --check' if check else ''}: {which} {state}",
             f"{folders.command('verify', domain)} (replays every task in tau2, English and Japanese)")


def files_written(names: list[str]) -> str:
    """The files a run wrote, a folder of many (banking's 698 documents) as one entry with its count."""
    folders: dict[str, int] = {}
    for name in names:
        if "/" in name:
            folders[name.split("/", 1)[0]] = folders.get(name.split("/", 1)[0], 0) + 1
    shown, seen = [], set()
    for name in names:
        folder = name.split("/", 1)[0] if "/" in name else None
        if folder and folders[folder] > 3:
            if folder not in seen:
                seen.add(folder)
                shown.append(f"{folder}/ ({folders[folder]} files)")
        else:
            shown.append(name)
    return ", ".join(shown)


def _dry_run_line(result) -> str:
    t = result.translation
    return (f"{result.rules.name}: {t.segments} segments, {t.unique} unique templates, {t.hits} in the "
            f"memory; would send {t.untranslated} segments ({t.pending_chars:,} characters) "
            f"in {t.pending_requests} requests")


def _stat(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _summary_rows(result, target: Path, folders: Folders, changed: list[str], check: bool,
                  report: Path | None) -> list[tuple[str, str, str | None]]:
    """The summary table of one domain's run: (key, value, style) rows."""
    rows: list[tuple[str, str, str | None]] = []

    def add(key: str, value: str, style: str | None = None) -> None:
        rows.append((key, value, style))

    add("source", str(result.source.path))
    add("output", str(target))
    t = result.translation
    repairs = result.repairs.report
    add("task repairs", f"{len(repairs.applied)} applied"
        + (f", {len(repairs.already)} already in the source" if repairs.already else ""))
    add("text fields", f"{result.text_fields} ({t.segments} segments, {t.unique} unique templates)")
    add("translation", f"{t.hits} from memory, {t.sent} translated in {counted(t.requests, 'request')}"
        + (f", {t.untranslated} untranslated (no endpoint: set JTAU_MODEL)" if t.untranslated else "")
        + (f", {t.kept} kept in the source language ({', '.join(result.rules.source_language)})"
           if t.kept else ""))
    stale, newly = len(result.tm.unused()), len(result.tm.newly_stale())
    add("memory", f"{len(result.tm.entries)} entries"
        + (f", {stale} stale (kept; their source no longer occurs)" if stale else ""))
    if newly:
        add("newly stale", f"{counted(newly, 'entry', 'entries')} whose source no longer occurs "
            "(this run marks them stale)", "yellow")
    for warning in first(t.warnings, 10):
        add("warning", warning)
    for name, value in result.report.stats.items():
        add(name, _stat(value))
    flags = len(result.report.warnings)
    add("QA warnings", f"{flags} (listed in {report})" if flags and report else
        f"{flags} (`--report FILE` lists them, so does `{folders.command('validate', result.rules.name)}`)"
        if flags else "0")
    add("time", "  ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()))
    if check:
        add("check", "output is up to date", "green")
    else:
        add("written", files_written(changed) if changed else "nothing changed")
    return rows


def _print_summary(run_: DomainRun) -> None:
    table = facts(f"jtau localize {run_.name}")
    for key, value, style in run_.rows:
        table.add_row(key, Text(value, style) if style else value)
    out_console.print(table)


@app.command()
def validate(domain: DomainArg, source: SourceOpt = None, out: OutOpt = None,
             arm: Annotated[str, typer.Option("--arm", help="The arm to check (docs/ARMS.md); built first if "
                                              "needed. Default: ja, J-tau itself.")] = "ja") -> None:
    """Check a written domain against its source: schema, money, references, leaks."""
    from jtau.arm_cache import validate_arm
    from jtau.arms import JTAU_ARM

    folders = Folders(source, out)
    try:
        project = Project.find()
        arm = arm_named(arm)
        failed, errors, warnings = [], 0, 0
        names = several(domains(domain), source)
        for name in names:
            report = validate_arm(name, arm, project, source, out)
            table = facts(f"jtau validate {name}" + ("" if arm == JTAU_ARM else f" --arm {arm}"))
            for key, value in report.stats.items():
                table.add_row(key, _stat(value))
            table.add_row("QA warnings", f"{len(report.warnings)}" + (" (listed below)" if report.warnings else ""))
            table.add_row("errors", str(len(report.errors)))
            out_console.print(table)
            every = f"{folders.command('review', name)} lists all"
            for line in first(report.errors, 40, every):
                err_console.print(f"  {line}", soft_wrap=True)
            if report.warnings:
                out_console.print(f"QA warnings ({len(report.warnings)}):")
                for line in first(report.warnings, 40, every):
                    out_console.print(f"  {line}", soft_wrap=True)
            errors, warnings = errors + len(report.errors), warnings + len(report.warnings)
            failed += [name] if report.errors else []
        which = names[0] if len(names) == 1 else f"{len(names)} domains"
        if failed:
            done(f"validate {domain}: {counted(errors, 'error')} in {', '.join(failed)}",
                 f"{folders.command('localize', failed[0])} (writes it again from source, maps and memory)")
            raise typer.Exit(1)
        done(f"validate {domain}: {which}, 0 errors, {counted(warnings, 'QA warning')}",
             f"{folders.command('verify', domain)} (replays every task in tau2, English and Japanese)")
    except JtauError as exc:
        fail(exc, folders)


@app.command()
def review(
    domain: DomainArg,
    out: OutOpt = None,
    page_dir: Annotated[Optional[Path], typer.Option(
        "--page-dir", callback=checked_path, help="Folder for the review pages. Default: data/review.")] = None,
    source: SourceOpt = None,
    tm: TmOpt = None,
    changed_since: Annotated[Optional[str], typer.Option(
        "--changed-since",
        help="Only the text that changed since this git revision: English, old and new Japanese.")] = None,
) -> None:
    """Write side-by-side review pages of localized domains: English and Japanese per task, policy
    section and document (the domains in --out, as source, maps and memory give them)."""
    from jtau.util.files import ensure_writable

    folders = Folders(source, out, tm)
    try:
        names = several(domains(domain), source)
        project = Project.find()
        folder = page_dir or project.root / "data" / "review"
        from jtau.project import refuse_installed

        refuse_installed(folder, "jtau review", "--page-dir DIR")
        ensure_writable(folder)
        if changed_since is not None:  # a revision that is no commit fails now, not after the work
            from jtau.changes import commit_of

            commit_of(project.root, changed_since)
        for name in names:
            _review_one(name, project, folder, folders, changed_since)
    except JtauError as exc:
        fail(exc, folders)


def _review_one(domain: str, project: Project, folder: Path, folders: Folders, changed_since: str | None) -> None:
    """One domain's review page (or, with a revision, its page of changes).  The page shows what
    source, maps and memory give; the domain's folder must hold exactly that, or the page would
    show another text than the folder's."""
    from jtau.review import review_json, review_page
    from jtau.util.files import atomic_write
    from jtau.write.check import check_files

    result = plan(domain, folders.source, folders.tm)
    target = out_dir(folders.out, project, domain)
    if not (target / "manifest.json").is_file():
        raise InputError(f"{target}: no localized {domain} domain here", run=("localize", domain))
    stale = check_files(target, result.outputs)
    if stale:
        differ = "differs" if len(stale) == 1 else "differ"
        raise OutOfDate(f"{target}: not what source, maps and memory ({result.tm.path}) give now "
                          f"({counted(len(stale), 'file')} {differ}), so a page would show another text: give the "
                          "--tm and --source it was localized with", first(stale, 5), run=("localize", domain),
                          run_label="or, to bring it up to date, run")
    if changed_since is not None:
        from jtau.changes import files_at_revision, text_changes
        from jtau.review import changes_page

        changes = text_changes(result, files_at_revision(project.root, target, result.outputs, changed_since))
        page = folder / f"{domain}.changes.html"
        atomic_write(page, changes_page(result, changes, changed_since).encode("utf-8"))
        for line in first((f"{c.where}: {c.old!r} -> {c.new!r}" for c in changes), 20, f"all in {page}"):
            out_console.print(line, soft_wrap=True)
        out_console.print(f"{domain}: {counted(len(changes), 'text field')} changed since {changed_since}; page {page}",
                          soft_wrap=True)
        return
    page, numbers = folder / f"{domain}.html", folder / f"{domain}.json"
    atomic_write(page, review_page(result).encode("utf-8"))
    atomic_write(numbers, (review_json(result) + "\n").encode("utf-8"))
    out_console.print(f"{domain}: review page {page} ({page.stat().st_size // 1024} KB), numbers {numbers}",
                      soft_wrap=True)
