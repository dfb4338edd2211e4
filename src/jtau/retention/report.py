"""Present the analysis: a rich table per cell and level, the JSON file, the plot."""

from __future__ import annotations

from pathlib import Path

import orjson
from rich.console import Group
from rich.table import Table
from rich.text import Text

from jtau.errors import InputError


def _f(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def blocks(results: list[dict]) -> Group:
    """The default report, readable at 80 columns and in a log: per cell a header line (model,
    benchmark, T, parse failures, mean length), then one row per level."""
    parts = []
    for cell in results:
        length = " / ".join(f"{lang} {v:.1f}" for lang, v in cell["mean_length"].items())
        header = Text.assemble((f"{cell['model']} · {cell['benchmark']} · T={cell['temperature']:g}", "bold"),
                               f"  parse fail {cell['parse_failure_rate']:.1%}",
                               ("" if cell["ranked"] else ("  unranked", "red")), f"  mean len {length}")
        rows = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1))
        for column in ("level", "n", "Iwithin", "Icross", "retention", "floor", "gap corrected [95% CI]"):
            rows.add_column(column, justify="left" if column == "level" else "right", no_wrap=True)
        for level, n in cell["levels"].items():
            ci = n["gap_corrected_ci"]
            rows.add_row(level, str(n["tasks"]), _f(n["iwithin"]), _f(n["icross"]), _f(n["retention"]),
                         _f(n["floor"]), _f(n["gap_corrected"]) + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        parts += [header, rows, Text("")]
    return Group(*parts)


def table(results: list[dict]) -> Table:
    """Every number in one table (`--wide`): needs a wide terminal."""
    out = Table(title="cross-lingual policy retention", show_lines=False)
    for column in ("model", "benchmark", "T", "level", "n", "Iwithin", "Icross", "retention", "floor",
                   "gap naive", "gap len-matched", "gap corrected [95% CI]", "parse fail", "mean len"):
        out.add_column(column, justify="right" if column not in ("model", "benchmark", "level") else "left")
    for cell in results:
        rate = f"{cell['parse_failure_rate']:.1%}" + ("" if cell["ranked"] else " unranked")
        length = " / ".join(f"{lang} {v:.1f}" for lang, v in cell["mean_length"].items())
        for level, n in cell["levels"].items():
            ci = n["gap_corrected_ci"]
            gap = _f(n["gap_corrected"]) + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            out.add_row(cell["model"], cell["benchmark"], f"{cell['temperature']:g}", level, str(n["tasks"]),
                        _f(n["iwithin"]), _f(n["icross"]), _f(n["retention"]), _f(n["floor"]),
                        _f(n["gap_naive"]), _f(n["gap_length_matched"]), gap, rate, length)
    return out


def write_json(results: list[dict], path: Path) -> None:
    from jtau.write import atomic_write

    atomic_write(path, orjson.dumps(results, option=orjson.OPT_INDENT_2) + b"\n")


def plot(results: list[dict], path: Path, level: str = "full") -> None:
    """Retention per model (x) with its bootstrap interval, one marker per benchmark and T."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'jtau[plot]'") from None
    models = sorted({cell["model"] for cell in results})
    series = sorted({(cell["benchmark"], cell["temperature"]) for cell in results})
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(models) + 3), 4.5))
    width = 0.8 / max(1, len(series))
    for k, (benchmark, temperature) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for i, model in enumerate(models):
            cell = next((c for c in results if c["model"] == model and c["benchmark"] == benchmark
                         and c["temperature"] == temperature), None)
            if cell is None or cell["levels"][level]["retention"] is None:
                continue
            numbers = cell["levels"][level]
            value, ci = numbers["retention"], numbers["retention_ci"] or [numbers["retention"]] * 2
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(value)
            lo.append(max(0.0, value - ci[0]))
            hi.append(max(0.0, ci[1] - value))
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=f"{benchmark}, T={temperature:g}")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(models)), models, rotation=20, ha="right")
    ax.set_ylabel(f"retention Icross / Iwithin ({level})")
    ax.set_title("Cross-lingual policy retention (95% bootstrap interval)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
