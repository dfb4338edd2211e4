"""`jtau tm`: exchange segments with translators outside the tool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jtau.cli.common import (
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

tm_app = typer.Typer(help="Exchange segments with translators outside the tool.", no_args_is_help=True)
app.add_typer(tm_app, name="tm")


@tm_app.command("export")
def tm_export(
    domain: Annotated[str, typer.Argument(help="Domain (airline).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSON Lines file to write.")],
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Write the segments the memory lacks, with placeholders explained and where they occur."""
    from jtau.translate.exchange import export
    from jtau.write import ensure_writable

    try:
        domains(domain)
        ensure_writable(out, folder=False)
        result = plan(domain, source, tm)
        count = export(result.translator.pending, result.text, result.maps.locale.locale, out)
        out_console.print(f"{domain}: {count} segments to translate written to {out}")
    except JtauError as exc:
        fail(exc)


@tm_app.command("import")
def tm_import(
    domain: Annotated[str, typer.Argument(help="Domain (airline).")],
    file: Annotated[Path, typer.Argument(help='JSON Lines of {"key": ..., "target": ...}.')],
    engine: Annotated[str, typer.Option(help="Who translated: manual, or an engine name.")] = "manual",
    status: Annotated[str, typer.Option(help="draft, reviewed or machine.")] = "draft",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only check the translations; write nothing.")] = False,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Check translations and record the valid ones in the memory (the others are listed)."""
    from jtau.translate.exchange import import_file

    try:
        domains(domain)
        if status not in ("draft", "reviewed", "machine"):
            raise InputError(f"--status {status!r}: use draft, reviewed or machine")
        if not file.is_file():
            raise InputError(f"{file}: file not found")
        result = plan(domain, source, tm)
        jobs = {job.key: job for job in result.translator.pending}
        count, problems = import_file(file, jobs, result.tm, result.glossary.allow_latin,
                                      frozenset(result.rules.enum_literals), engine, status, dry_run)
        if dry_run:
            out_console.print(f"{domain}: {count} valid translations, {len(problems)} problems (nothing written)")
        else:
            from jtau.write import atomic_write
            atomic_write(result.tm.path, result.tm.render(mark_stale=False))
            result.tm.discard_journal()
            out_console.print(f"{domain}: {count} translations recorded in {result.tm.path}; "
                              f"{len(jobs) - count} segments still missing")
        for line in problems[:60]:
            err_console.print(f"  {line}", highlight=False, soft_wrap=True)
        if problems:
            raise typer.Exit(1)
    except JtauError as exc:
        fail(exc)
