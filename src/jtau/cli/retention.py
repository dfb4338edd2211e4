"""`jtau retention`: does an agent do the same thing in Japanese as in English?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.text import Text

from jtau.cli.common import (
    UNLIMITED,
    app,
    checked_path,
    err_console,
    fail,
    out_console,
    progress_bar,
    say_error,
    whole,
)
from jtau.errors import InputError, JtauError
from jtau.util.listing import first

if TYPE_CHECKING:
    from jtau.retention.cell import Cell
    from jtau.retention.study import Study

retention_app = typer.Typer(help="Measure whether an agent does the same thing in Japanese as in English.",
                            no_args_is_help=True)
app.add_typer(retention_app, name="retention")


def checked_paths(values: list[Path] | None) -> list[Path] | None:
    """checked_path of a repeatable path option or argument."""
    for value in values or []:
        checked_path(value)
    return values


def named(option: str, value: str) -> str:
    """A language or a model name given on the command line: not empty, no text that is no text;
    else one error line."""
    from jtau.util.limits import not_text

    if not value or (why := not_text(value)):
        raise InputError(f"{option} {value!r}: {'empty' if not value else why}")
    return value


@retention_app.command("import")
def retention_import(
    out: Annotated[Path, typer.Option("--out", "-o", callback=checked_path, help="Trace file (JSON Lines) to write.")],
    tau2_results: Annotated[Optional[list[Path]], typer.Option(
        "--tau2", callback=checked_paths,
        help="tau2 results: 26.3's X.json or 1.0.1's X/results.json or X/ (repeatable).")] = None,
    react: Annotated[Optional[list[Path]], typer.Option(
        "--react", callback=checked_paths,
        help="JSON Lines of ReAct transcripts with trace metadata (repeatable).")] = None,
    source_lang: Annotated[str, typer.Option(
        "--source-lang", help="The language of a tau2 domain that is no J-tau arm (tau2's own airline).")] = "en",
    model: Annotated[Optional[str], typer.Option(
        help="Model name for tau2 results (default: the agent's LLM).")] = None,
    temperature: Annotated[Optional[float], typer.Option(
        help="The agent's temperature, for tau2 results that do not record it.")] = None,
    runtime: Annotated[Optional[str], typer.Option(
        help="The tau2 that wrote the results, where the file does not say (default: its jtau block, tau2-bench "
             "1.0.1's fields, else unknown).")] = None,
) -> None:
    """Convert tau2 results files and ReAct transcripts into a trace file."""
    from jtau.retention.importers import check_temperature, from_react, from_tau2_results
    from jtau.retention.traces import write_traces

    try:
        if not tau2_results and not react:
            raise InputError("nothing to import: give --tau2 FILE and/or --react FILE")
        from jtau.util.files import ensure_writable

        named("--source-lang", source_lang)
        if model is not None:
            named("--model", model)
        if temperature is not None:
            check_temperature(temperature, "--temperature")
        if runtime is not None:
            named("--runtime", runtime)
        ensure_writable(out, folder=False)
        traces, unparsed = [], 0
        for path in tau2_results or []:
            traces += from_tau2_results(path, source_lang, model, temperature, runtime)
        for path in react or []:
            found, failed = from_react(path)
            traces += found
            unparsed += failed
        count = write_traces(out, traces)
        out_console.print(f"{count} traces written to {out}" + (f"; {unparsed} transcripts unparseable "
                                                                  "(kept as parsed: false)" if unparsed else ""))
    except JtauError as exc:
        fail(exc)


@retention_app.command("analyze")
def retention_analyze(
    traces: Annotated[list[Path], typer.Argument(callback=checked_paths, help="Trace files (JSON Lines).")],
    source_lang: Annotated[str, typer.Option("--source-lang")] = "en",
    target_lang: Annotated[Optional[str], typer.Option(
        "--target-lang", help="Only this target language. Default: every language besides the source.")] = None,
    pairs: Annotated[Optional[str], typer.Option(
        "--pairs", help="Language pairs instead, comma-separated: en:ja,en:hi,ja:hi.")] = None,
    baseline: Annotated[str, typer.Option(
        help="Iwithin that retention divides by: pooled (both languages), source or target.")] = "pooled",
    permutations: Annotated[int, typer.Option(min=10, max=1_000_000,
                                              help="Random different-task pairs for the chance floor.")] = 1000,
    bootstrap: Annotated[int, typer.Option(min=0, max=100_000,
                                           help="Bootstrap resamples over tasks (0: no intervals).")] = 1000,
    details: Annotated[bool, typer.Option(
        "--details", help="Rewards, answer vs action, failures, diagnostics, each task's routes and the arms' "
                          "decomposition (traces from tau2 results; what `jtau experiment report` shows).")] = False,
    json_file: Annotated[Optional[Path], typer.Option(
        "--json", callback=checked_path, help="Write every number as JSON.")] = None,
    markdown_file: Annotated[Optional[Path], typer.Option(
        "--markdown", callback=checked_path, help="Write the report as Markdown.")] = None,
    plot_file: Annotated[Optional[Path], typer.Option(
        "--plot", callback=checked_path, help="Draw retention per model (PNG).")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="One table with every number (needs ~200 columns).")] = False,
) -> None:
    """Iwithin, Icross, naive and matched retention, raw / matched / corrected gaps per model x benchmark
    x temperature x runtime x language pair (definitions: src/jtau/retention/analysis.py)."""
    from jtau.retention.traces import TraceFiles

    try:
        if baseline not in ("pooled", "source", "target"):
            raise InputError(f"--baseline {baseline!r}: use pooled, source or target")
        named("--source-lang", source_lang)
        if target_lang is not None:
            named("--target-lang", target_lang)
        pair_list = None
        if pairs is not None:
            pair_list = [tuple(item.split(":")) for item in pairs.split(",")]
            if not all(len(p) == 2 and all(p) and p[0] != p[1] for p in pair_list):
                raise InputError(f"--pairs {pairs!r}: expected SOURCE:TARGET[,SOURCE:TARGET...] of two languages")
            for pair in pair_list:
                for side in pair:
                    named("--pairs", side)
        check_outputs(json_file, markdown_file, plot_file)
        results = analysed(TraceFiles(tuple(traces)), source_lang, target_lang, pair_list, permutations, bootstrap,
                           baseline, details, ", ".join(map(str, traces)))
        show_and_write(results, None, json_file, markdown_file, plot_file, wide)
    except JtauError as exc:
        fail(exc)


def check_outputs(*paths: Path | None) -> None:
    """Every output can be written (and --plot can draw), before the analysis."""
    from jtau.retention.report import check_plot
    from jtau.util.files import ensure_writable

    for path in paths:
        if path:
            ensure_writable(path, folder=False)
    if paths[-1]:
        check_plot()


def analysed(traces, source: str = "en", target: str | None = None, pairs=None, permutations: int = 1000,
             bootstrap: int = 1000, baseline: str = "pooled", details: bool = True,
             where: str = "the given files") -> Study:
    """retention.study of `traces` (read from `where`) with a progress bar, its warnings on stderr."""
    from jtau.retention.analysis import cell_name
    from jtau.retention.study import study

    try:
        with progress_bar() as bar:
            task = bar.add_task("reading traces and analysing cells", total=None)
            result = study(traces, source, target, pairs, permutations, bootstrap, baseline, details, where,
                           lambda done, total: bar.update(task, completed=done, total=total))
    except KeyboardInterrupt:
        say_error("interrupted: the analysis stopped; nothing was written")
        raise typer.Exit(130) from None
    warnings = [f"{cell_name(cell)}: {warning}" for cell in result.cells for warning in cell["warnings"]]
    for line in first(warnings, 5, "all in --json, key warnings"):
        err_console.print(Text(f"warning: {line}"), soft_wrap=True)
    return result


def show_and_write(results: Study, manifest: dict | None, json_file: Path | None, markdown_file: Path | None,
                   plot_file: Path | None, wide: bool = False) -> None:
    """Print the report (blocks, or one wide table), the summary and the decomposition; write
    the JSON, Markdown and plot asked for."""
    from jtau.retention.report import decomposition_table, markdown, plot, summary_table, table, write_json
    from jtau.util.files import atomic_write

    if wide:
        whole(table(results.cells))
    else:
        print_blocks(results.cells)
    whole(summary_table(results.summary))
    if results.decomposition:
        whole(decomposition_table(results.decomposition))
    if json_file:
        write_json({**({"experiment": manifest} if manifest else {}), **results.as_dict()}, json_file)
    if markdown_file:
        atomic_write(markdown_file, markdown(results.cells, manifest, results.decomposition).encode("utf-8"))
    if plot_file:
        plot(results.cells, plot_file)


def _blocks_text(cells: list[Cell]) -> str:
    from jtau.retention.report import blocks

    with out_console.capture() as capture:
        out_console.print(blocks(cells), soft_wrap=True)
    return capture.get()


def print_blocks(cells: list[Cell]) -> None:
    """The cells' blocks (report.blocks) as `whole` prints them; in a pipe or a log (as wide as it
    gets: each cell's lines its own), rendered in forked processes, one CPU each, and written in order."""
    import multiprocessing
    import signal

    from jtau.retention.analysis import default_workers
    from jtau.retention.report import blocks

    workers = min(default_workers(), len(cells) // 64)
    if out_console.width < UNLIMITED or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        whole(blocks(cells))
        return
    size = -(-len(cells) // (4 * workers))
    with multiprocessing.get_context("fork").Pool(workers, initializer=signal.signal,
                                                  initargs=(signal.SIGINT, signal.SIG_IGN)) as pool:
        for text in pool.imap(_blocks_text, [cells[i:i + size] for i in range(0, len(cells), size)]):
            try:
                out_console.file.write(text)
                out_console.file.flush()
            except BrokenPipeError:
                out_console.on_broken_pipe()
