"""`jtau tm`: exchange segments with translators outside the tool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from jtau.cli.common import (
    OneDomainArg,
    SourceOpt,
    TmOpt,
    app,
    domains,
    err_console,
    fail,
    out_console,
)
from jtau.cli.localize import plan
from jtau.errors import InputError, JtauError
from jtau.listing import first

tm_app = typer.Typer(help="Exchange segments with translators outside the tool.", no_args_is_help=True)
app.add_typer(tm_app, name="tm")


@tm_app.command("export")
def tm_export(
    domain: OneDomainArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="File to write: .jsonl, .po, .xlf/.xliff or .tmx.")],
    status: Annotated[str, typer.Option(
        help="Which segments: missing (the memory lacks them), draft, reviewed, machine, or all.")] = "missing",
    format: Annotated[Optional[str], typer.Option(
        "--format", help="jsonl, po, xliff or tmx. Default: from the file's suffix.")] = None,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Write segments for translators or reviewers, with placeholders explained and where they occur."""
    from jtau.translate.catfiles import format_of
    from jtau.translate.exchange import all_jobs, export
    from jtau.write import ensure_writable

    try:
        domains(domain, allow_all=False)
        if status not in ("missing", "draft", "reviewed", "machine", "all"):
            raise InputError(f"--status {status!r}: use missing, draft, reviewed, machine or all")
        format_of(out, format)
        ensure_writable(out, folder=False)
        result = plan(domain, source, tm)
        jobs = all_jobs(result.text, result.glossary, result.maps.locale.locale)
        count = export(jobs, {job.key for job in result.translator.pending}, result.tm, result.text,
                       result.maps.locale.locale, out, status, format, domain)
        out_console.print(f"{domain}: {count} segments ({status}) written to {out}")
    except JtauError as exc:
        fail(exc)


@tm_app.command("import")
def tm_import(
    domain: OneDomainArg,
    file: Annotated[Path, typer.Argument(help='PO, XLIFF or TMX from jtau tm export, or JSON Lines of {"key", "target"}.')],
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
        if not file.is_file():
            raise InputError(f"{file}: file not found")
        result = plan(domain, source, tm)
        jobs = all_jobs(result.text, result.glossary, result.maps.locale.locale)
        missing = {job.key for job in result.translator.pending}
        count, problems = import_file(file, jobs, result.tm, result.glossary.allow_latin,
                                      frozenset(result.rules.enum_literals), engine, status, dry_run, force)
        if dry_run:
            out_console.print(f"{domain}: {count} valid translations, {len(problems)} problems (nothing written)")
        else:
            from jtau.write import atomic_write
            atomic_write(result.tm.path, result.tm.render(mark_stale=False))
            result.tm.discard_journal()
            still = len(missing - set(result.tm.entries))
            out_console.print(f"{domain}: {count} translations recorded in {result.tm.path}; "
                              f"{still} segments still missing")
        for line in first(problems, 60):
            err_console.print(f"  {line}", highlight=False, soft_wrap=True)
        if problems:
            raise typer.Exit(1)
    except JtauError as exc:
        fail(exc)
