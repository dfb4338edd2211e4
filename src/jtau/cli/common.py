"""What every command shares: the app, the consoles, common options, error exits."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from jtau import __version__, rules
from jtau.errors import InputError, JtauError

app = typer.Typer(help="Localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

out_console = Console()
err_console = Console(stderr=True)

DomainArg = Annotated[str, typer.Argument(help="Domain to process (airline), or 'all'.")]
SourceOpt = Annotated[Optional[Path], typer.Option(
    "--source", help="A tau2-bench data/tau2/domains folder. Default: $JTAU_SOURCE, then the installed tau2 package.")]
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", help="Folder that holds the localized domains (one subfolder each). Default: data/domains.")]


def domains(domain: str) -> list[str]:
    if domain == "all":
        return rules.available()
    if domain not in rules.available():
        raise InputError(f"unknown domain {domain!r}; known: {', '.join(rules.available())}, all")
    return [domain]


def fail(exc: JtauError) -> None:
    err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False)
    for line in exc.details:
        err_console.print(f"  {line}", highlight=False, soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def out_dir(out: Path | None, root: Path, domain: str) -> Path:
    from jtau.project import default_out
    return (out / domain) if out else default_out(root, domain)

TmOpt = Annotated[Optional[Path], typer.Option("--tm", help="Translation memory folder. Default: data/tm.")]


def progress_bar() -> Progress:
    """A transient progress display on stderr (nothing is left in logs or pipes)."""
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err_console, transient=True)


@app.callback(invoke_without_command=True)
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False) -> None:
    if version:
        out_console.print(f"jtau {__version__}")
        raise typer.Exit()
