"""`jtau retention`: does an agent do the same thing in Japanese as in English?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from jtau.cli.common import app, checked_path, fail, out_console
from jtau.errors import InputError, JtauError

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
    from jtau.cli.study_output import analysed, check_outputs, show_and_write
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
