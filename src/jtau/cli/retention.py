"""`jtau retention`: does an agent do the same thing in Japanese as in English?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.text import Text

from jtau.cli.common import (
    app,
    err_console,
    fail,
    out_console,
    progress_bar,
    whole,
)
from jtau.errors import InputError, JtauError
from jtau.listing import first

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
    temperature: Annotated[Optional[float], typer.Option(
        help="The agent's temperature, for tau2 results that do not record it.")] = None,
) -> None:
    """Convert tau2 results files and ReAct transcripts into a trace file."""
    from jtau.retention.importers import from_react, from_tau2_results
    from jtau.retention.traces import write_traces

    try:
        if not tau2_results and not react:
            raise InputError("nothing to import: give --tau2 FILE and/or --react FILE")
        from jtau.write import ensure_writable

        ensure_writable(out, folder=False)
        traces, unparsed = [], 0
        for path in tau2_results or []:
            traces += from_tau2_results(path, source_lang, target_lang, model, temperature)
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
    traces: Annotated[list[Path], typer.Argument(help="Trace files (JSON Lines).")],
    source_lang: Annotated[str, typer.Option("--source-lang")] = "en",
    target_lang: Annotated[Optional[str], typer.Option(
        "--target-lang", help="Only this target language. Default: every language besides the source.")] = None,
    pairs: Annotated[Optional[str], typer.Option(
        "--pairs", help="Language pairs instead, comma-separated: en:ja,en:hi,ja:hi.")] = None,
    baseline: Annotated[str, typer.Option(
        help="Iwithin that retention divides by: pooled (both languages), source or target.")] = "pooled",
    permutations: Annotated[int, typer.Option(min=10, help="Random different-task pairs for the chance floor.")] = 1000,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples over tasks (0: no intervals).")] = 1000,
    json_file: Annotated[Optional[Path], typer.Option("--json", help="Write every number as JSON.")] = None,
    plot_file: Annotated[Optional[Path], typer.Option("--plot", help="Draw retention per model (PNG).")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="One table with every number (needs ~200 columns).")] = False,
) -> None:
    """Iwithin, Icross, naive and matched retention, raw / matched / corrected gaps per model x benchmark
    x temperature x language pair (definitions: src/jtau/retention/analysis.py)."""
    from jtau.maps import load_maps
    from jtau.project import maps_dir, project_root
    from jtau.retention.analysis import analyze
    from jtau.retention.canonical import Canonicalizer
    from jtau.retention.report import blocks, plot, summary_table, table, write_json
    from jtau.retention.traces import read_traces

    from jtau.write import ensure_writable

    try:
        if baseline not in ("pooled", "source", "target"):
            raise InputError(f"--baseline {baseline!r}: use pooled, source or target")
        pair_list = None
        if pairs:
            try:
                pair_list = [tuple(item.split(":")) for item in pairs.split(",")]
                assert all(len(p) == 2 and all(p) for p in pair_list)
            except AssertionError:
                raise InputError(f"--pairs {pairs!r}: expected SOURCE:TARGET[,SOURCE:TARGET...]") from None
        for path in (json_file, plot_file):
            if path:
                ensure_writable(path, folder=False)
        import importlib.util

        if plot_file and importlib.util.find_spec("matplotlib") is None:  # now, not after the analysis
            raise InputError("--plot needs matplotlib: pip install matplotlib")
        maps = load_maps(maps_dir(project_root()))
        canonical = Canonicalizer(maps, maps.locale.locale.split("-")[0])  # arguments in ja map back
        with progress_bar() as bar:
            task = bar.add_task("reading traces and analysing cells", total=None)
            results = analyze(read_traces(traces), canonical, source_lang, target_lang, permutations, bootstrap,
                              lambda done, total: bar.update(task, completed=done, total=total), baseline,
                              pair_list, summary := {})
        if not results:
            raise InputError(f"no language pair with traces on both sides (source {source_lang!r}) in the given files")
        warnings = [f"{cell['model']} {cell['benchmark']} T={cell['temperature']:g} {cell['source']}->"
                    f"{cell['target']}: {warning}" for cell in results for warning in cell["warnings"]]
        for line in first(warnings, 5, "all in --json, key warnings"):
            err_console.print(Text(f"warning: {line}"), soft_wrap=True)
        whole(table(results) if wide else blocks(results))
        whole(summary_table(summary))
        if json_file:
            write_json({"cells": results, "summary": summary}, json_file)
        if plot_file:
            plot(results, plot_file)
    except JtauError as exc:
        fail(exc)
