"""How a retention study (retention.study) is shown and written, for `jtau retention analyze`
and `jtau experiment report`: the progress of the analysis, its warnings, the report's blocks or
wide table, the summary and decomposition, and the JSON, Markdown and plot asked for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from jtau.cli.common import UNLIMITED, err_console, out_console, progress_bar, say_error, whole
from jtau.util.listing import first

if TYPE_CHECKING:
    from jtau.retention.cell import Cell, Study


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
