"""`jtau experiment run | report | calibrate`: English and J-tau through tau2, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from jtau.cli.common import app, arms_named, done, fail, progress_bar, say_error, whole
from jtau.errors import CheckFailed, InputError, JtauError
from jtau.util.listing import counted

experiment_app = typer.Typer(help="Run an agent on English and J-tau, and report whether it did the same thing.",
                             no_args_is_help=True)
app.add_typer(experiment_app, name="experiment")

USER_CHOICES = {"ja": ["user_simulator_ja"], "ja-en-prompt": ["user_simulator_ja-en-prompt"],
                "both": ["user_simulator_ja", "user_simulator_ja-en-prompt"]}
OutArg = Annotated[Path, typer.Option("--out", "-o", help="The experiment folder (created, or continued).")]
DomainsOpt = Annotated[str, typer.Option(
    "--domains", help="tau2 domains, comma-separated: airline, retail, telecom, telecom-workflow, banking_knowledge.")]
ArmsOpt = Annotated[str, typer.Option(help="Arms, comma-separated: en, ja, ja-entities, ja-text (the 2x2: "
                                           "text language x entity locale).")]
UsersOpt = Annotated[str, typer.Option(help="The customer of Japanese-text arms: ja-en-prompt (tau2's English "
                                            "prompt, speaks Japanese: recommended, docs/ARMS.md), ja "
                                            "(user_simulator_ja: the translated prompt), or both.")]


def _list(value: str, name: str) -> list[str]:
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError(f"{name}: give at least one")
    return items


def _users(value: str) -> list[str]:
    if value not in USER_CHOICES:
        raise InputError(f"--users {value!r}: one of {', '.join(USER_CHOICES)}")
    return USER_CHOICES[value]


def _progress(description: str):
    """A progress callback on a bar: simulations done/total, failures, rate."""
    bar = progress_bar()
    state = {}

    def update(progress) -> None:
        if "task" not in state:
            state["task"] = bar.add_task(description, total=progress.total, completed=progress.done)
        failed = f" ({progress.failed} failed)" if progress.failed else ""
        bar.update(state["task"], completed=progress.done, total=progress.total, description=description + failed)

    return bar, update


def _domains(value: str) -> list[str]:
    from jtau.retention.canonical import rules_of

    names = _list(value, "--domains")
    unknown = [n for n in names if rules_of(n) is None]
    if unknown:
        raise InputError(f"--domains: {unknown[0]!r} is no J-tau domain (airline, retail, telecom, telecom-workflow, "
                         "banking_knowledge)")
    return names


@experiment_app.command("run")
def run(
    out: OutArg,
    domains: DomainsOpt,
    agent_llm: Annotated[str, typer.Option(help="The agent's model (litellm's name, e.g. gpt-4.1).")],
    user_llm: Annotated[str, typer.Option(help="The customer's model.")],
    agent_llm_args: Annotated[Optional[str], typer.Option(help="JSON: the agent's llm args (no key).")] = None,
    user_llm_args: Annotated[Optional[str], typer.Option(help="JSON: the customer's llm args (no key).")] = None,
    judge_llm: Annotated[Optional[str], typer.Option(help="tau2-bench 1.0.1: the NL-assertion judge.")] = None,
    judge_llm_args: Annotated[Optional[str], typer.Option(help="JSON: the judge's llm args (no key).")] = None,
    agent_key_env: Annotated[Optional[str], typer.Option(
        help="The environment variable holding the agent's key (default: the provider's, "
             "e.g. OPENAI_API_KEY).")] = None,
    user_key_env: Annotated[Optional[str], typer.Option(help="The variable holding the customer's key.")] = None,
    arms: ArmsOpt = "en,ja",
    users: UsersOpt = "ja-en-prompt",
    agent: Annotated[str, typer.Option(help="tau2's agent implementation.")] = "llm_agent",
    trials: Annotated[int, typer.Option(min=1, help="Trials per task (retention needs 2 or more).")] = 2,
    seed: Annotated[int, typer.Option(help="tau2's --seed: each trial's seed derives from it.")] = 300,
    task_ids: Annotated[Optional[list[str]], typer.Option(
        "--task-ids", help="Only these tasks: --task-ids 0 1 2 as in tau2 run, or the option repeated.")] = None,
    num_tasks: Annotated[Optional[int], typer.Option(min=1, help="Only the first N tasks.")] = None,
    max_steps: Annotated[int, typer.Option(min=1)] = 200,
    max_errors: Annotated[int, typer.Option(min=1)] = 10,
    retrieval_config: Annotated[Optional[str], typer.Option(
        help="banking_knowledge's retrieval configuration.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Simulations at a time.")] = 4,
    max_retries: Annotated[int, typer.Option(min=0, help="Tries again a simulation that raised, then records it "
                                                         "as a failure.")] = 3,
    shard: Annotated[Optional[str], typer.Option("--shard", help="Run part K of N of the plan (K/N, 0 <= K < N: "
                                                                "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT); "
                                                                "shards share --out or write one folder each.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count the plan's simulations per side; run and write "
                                                            "nothing.")] = False,
    like: Annotated[Optional[Path], typer.Option("--like", help="With --dry-run: an earlier experiment folder whose "
                                                               "simulations project cost and time.")] = None,
) -> None:
    """Run the plan's simulations into the experiment folder; run it again to continue it."""
    try:
        from jtau.experiment.plan import Plan
        from jtau.experiment.runner import run_experiment
        from jtau.runtime.compat import require_tau2_data, runtime_name
        from jtau.util.options import llm_args

        require_tau2_data()
        args = llm_args(agent_llm_args, "--agent-llm-args") or {}
        if "temperature" not in args:
            from tau2 import config

            args["temperature"] = config.DEFAULT_LLM_TEMPERATURE_AGENT  # results are quoted with it
        try:
            # (checked in the order the plan's fields were: the domains, the arms' list, the users and
            # llm args, then the arms' names)
            domain_names, arm_list, user_names = _domains(domains), _list(arms, "--arms"), _users(users)
            user_args = llm_args(user_llm_args, "--user-llm-args") or {}
            judge_args = llm_args(judge_llm_args, "--judge-llm-args")
            plan = Plan(domains=domain_names, arms=arms_named(arm_list, "--arms"), users=user_names, agent=agent,
                        agent_llm=agent_llm, agent_llm_args=args, user_llm=user_llm,
                        user_llm_args=user_args, judge_llm=judge_llm,
                        judge_llm_args=judge_args, agent_key_env=agent_key_env,
                        user_key_env=user_key_env, trials=trials, seed=seed, task_ids=task_ids, num_tasks=num_tasks,
                        max_steps=max_steps, max_errors=max_errors, retrieval_config=retrieval_config,
                        runtime=runtime_name())
        except ValueError as exc:  # pydantic: the first problem in one line
            errors: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
            first: dict[str, Any] = errors[0] if errors else {"loc": (), "msg": str(exc)}
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(f"--{where.replace('_', '-')}: {first['msg'].removeprefix('Value error, ')}") from None
        from jtau.experiment.runner import parse_shard

        part = parse_shard(shard) if shard is not None else (0, 1)
        if like is not None and not dry_run:
            raise InputError("--like projects a --dry-run: give --dry-run too")
        if dry_run:
            _dry_run(plan, like, concurrency)
            return
        from jtau.util.files import ensure_writable

        ensure_writable(out)
        bar, update = _progress("simulations")
        try:
            with bar:
                progress = run_experiment(out, plan, concurrency, max_retries, update, part)
        except KeyboardInterrupt:
            written = len(list((out / "simulations").glob("*/*/*.json")))
            say_error(f"interrupted: {written} simulations are written in {out}; run the same command to continue")
            raise typer.Exit(130) from None
        failed = f", {progress.failed} of them failures" if progress.failed else ""
        which = f" shard {part[0]}/{part[1]}" if shard is not None else ""
        done(f"experiment {out}{which}: {progress.done}/{progress.total} simulations ({progress.ran} run now{failed})",
             f"jtau experiment report {out}")
    except JtauError as exc:
        fail(exc)


def _dry_run(plan, like: Path | None, concurrency: int) -> None:
    """The plan's simulations per side and, measured on `like`, their projected cost and time."""
    from jtau.cli.common import facts, out_console
    from jtau.experiment import estimate
    from jtau.experiment.runner import prepare

    tasks, _ = prepare(plan)
    sides = estimate.count(plan, tasks)
    measured = estimate.measure(like) if like is not None else None
    if measured:
        estimate.project(sides, measured)
    table = facts("jtau experiment run --dry-run" + (f" --like {like}" if like else ""))
    for side in sides:
        projected = ""
        if measured:
            cost = "cost not recorded" if side.cost is None else f"${side.cost:,.2f}"
            time = "" if side.seconds is None else f", {side.seconds / 3600:,.1f} h of simulation"
            projected = f"; {cost}{time}"
        table.add_row(f"{side.domain} {side.user}", f"{side.tasks} tasks x {plan.trials} trials = "
                      f"{side.simulations:,} simulations{projected}")
    total = sum(side.simulations for side in sides)
    summary = f"{total:,} simulations"
    if measured:
        costs = [side.cost for side in sides if side.cost is not None]
        seconds = [side.seconds for side in sides if side.seconds is not None]
        summary += (f"; projected ${sum(costs):,.2f}" if costs else "; cost not recorded in --like")
        summary += (f", {sum(seconds) / concurrency / 3600:,.1f} h at --concurrency {concurrency}" if seconds else "")
        summary += f" (measured on {measured[None].simulations:,} simulations of {like})"
    table.add_row("total", summary)
    out_console.print(table)
    done(f"dry run: {summary}; nothing run, nothing written", "drop --dry-run to run it")


@experiment_app.command("report")
def report(
    folders: Annotated[list[Path], typer.Argument(help="An experiment folder (jtau experiment run --out), or the "
                                                       "folders of its shards.")],
    json_file: Annotated[Optional[Path], typer.Option(
        "--json", help="Every number as JSON (default: FOLDER/report.json).")] = None,
    markdown_file: Annotated[Optional[Path], typer.Option(
        "--markdown", help="The Markdown report (default: FOLDER/report.md).")] = None,
    plot_file: Annotated[Optional[Path], typer.Option(
        "--plot", help="Draw reward and retention per cell (PNG).")] = None,
    bootstrap: Annotated[int, typer.Option(min=0, max=100_000, help="Bootstrap resamples over tasks.")] = 1000,
    permutations: Annotated[int, typer.Option(min=10, max=1_000_000,
                                              help="Random task pairs for the chance floor.")] = 1000,
) -> None:
    """Reward, retention, failures, diagnostics and the decomposition of an experiment, per cell."""
    try:
        from jtau.cli.study_output import analysed, check_outputs, show_and_write
        from jtau.experiment.load import experiment_traces
        from jtau.util.listing import counted

        folder = folders[0]
        json_file, markdown_file = json_file or folder / "report.json", markdown_file or folder / "report.md"
        check_outputs(json_file, markdown_file, plot_file)
        manifest, traces = experiment_traces(*folders)
        if not traces:
            raise InputError(f"{folder}: no simulation written yet; run: jtau experiment run --out {folder} ...")
        where = ", ".join(map(str, folders))
        results = analysed(traces, permutations=permutations, bootstrap=bootstrap, where=where)
        show_and_write(results, manifest, json_file, markdown_file, plot_file)
        done(f"report of {where}: {counted(len(results.cells), 'cell')}, {counted(len(traces), 'simulation')}; "
             f"written {markdown_file} "
             f"and {json_file}", f"read {markdown_file}")
    except JtauError as exc:
        fail(exc)


@experiment_app.command("calibrate")
def calibrate_command(
    domains: DomainsOpt = "airline",
    arms: ArmsOpt = "en,ja",
    users: UsersOpt = "ja",
    trials: Annotated[int, typer.Option(min=1, help="Trials per task. Retention needs two arms (en and another) "
                                                     "and two trials; with one arm or one trial each side's rewards "
                                                     "and failures are checked.")] = 2,
    task_ids: Annotated[Optional[list[str]], typer.Option(
        "--task-ids", help="Only these tasks: --task-ids 0 1 2 as in tau2 run, or the option repeated.")] = None,
    num_tasks: Annotated[Optional[int], typer.Option(min=1, help="Only the first N tasks.")] = None,
    retrieval_config: Annotated[Optional[str], typer.Option(help="banking_knowledge's retrieval configuration "
                                                                 "(bm25 needs no embeddings).")] = "bm25",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Keep the experiment here (default: a "
                                                                    "temporary folder).")] = None,
    concurrency: Annotated[int, typer.Option(min=1)] = 4,
) -> None:
    """A scripted perfect agent through the whole experiment: reward 1.000 and retention exactly
    1.000 on every side, or exit 1 naming what is not."""
    import tempfile

    try:
        from jtau.experiment.calibrate import calibrate
        from jtau.runtime.compat import require_tau2_data

        require_tau2_data()
        with tempfile.TemporaryDirectory(prefix="jtau-calibrate-") as tmp:
            folder = out or Path(tmp)
            bar, update = _progress("scripted simulations")
            with bar:
                domain_names, arm_list, user_names = _domains(domains), _list(arms, "--arms"), _users(users)
                result = calibrate(folder, domain_names, arms_named(arm_list, "--arms"), user_names, trials, task_ids,
                                   num_tasks, retrieval_config=retrieval_config, concurrency=concurrency,
                                   on_progress=update)
            from jtau.retention.report import blocks

            if result.results:
                whole(blocks(result.results))
            else:
                whole(_sides_table(result.sides))
        problems = result.problems + [f"scripted server: {e}" for e in result.server_errors]
        if problems:
            raise CheckFailed(f"calibration: {len(problems)} numbers are not a perfect agent's", problems)
        if result.results:
            done(f"calibration: {counted(len(result.results), 'cell')}, reward 1.000 and retention 1.000 at both "
                 "levels, no failure", "jtau experiment run --out DIR --domains ... --agent-llm MODEL --user-llm MODEL")
        else:
            scored = sum(side["scored"] for side in result.sides)
            done(f"calibration: {counted(len(result.sides), 'side')}, reward 1.000 in {scored}/{scored} simulations, "
                 "no failure (no retention: it needs en and another arm, and two trials)",
                 "jtau experiment run --out DIR --domains ... --agent-llm MODEL --user-llm MODEL")
    except KeyboardInterrupt:
        say_error("interrupted: calibration stopped")
        raise typer.Exit(130) from None
    except JtauError as exc:
        fail(exc)


def _sides_table(sides: list[dict]):
    """Each side's simulations, reward and failures (a calibration without a pair to compare)."""
    from rich.table import Table

    table = Table(title="scripted simulations per side")
    for column in ("benchmark", "arm", "customer", "simulations", "reward", "failures"):
        table.add_column(column)
    for side in sides:
        reward = "" if side["reward"] is None else f"{side['reward']:.3f}"
        failures = ", ".join(f"{reason} {count}" for reason, count in sorted(side["failures"].items())) or "0"
        table.add_row(side["benchmark"], side["arm"], side["user"] or "", str(side["simulations"]), reward, failures)
    return table
