"""Present the analysis: a rich table per cell and level, the JSON file, the plot."""

from __future__ import annotations

from pathlib import Path

import orjson
from rich.console import Group
from rich.table import Table
from rich.text import Text

from jtau.errors import InputError
from jtau.listing import joined


def _f(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(interval) -> str:
    return f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""


def blocks(results: list[dict]) -> Group:
    """The default report, readable at 80 columns and in a log: per cell a header line (model,
    benchmark, T, language pair, parse failures per language, mean length), then a row per level:
    naive and matched retention, and the raw, matched and corrected gaps side by side."""
    parts = []
    for cell in results:
        failures = ", ".join(f"{lang} {rate:.1%}" for lang, rate in cell["failure_rate_by_language"].items())
        length = " / ".join(f"{lang} {v:.1f}" for lang, v in cell["mean_length"].items())
        header = Text.assemble((f"{cell['model']} · {cell['benchmark']} · T={cell['temperature']:g} · "
                                f"{cell['source']}→{cell['target']}", "bold"),
                               f"  failed {failures}", ("" if cell["ranked"] else ("  unranked", "red")),
                               f"  len {length}")
        rows = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1))
        for column in ("level", "n", "Iwithin", "Icross", "ret", "ret m", "gap raw", "gap m",
                       "gap corr [95% CI]"):
            rows.add_column(column, justify="left" if column == "level" else "right", no_wrap=True)
        for level, n in cell["levels"].items():
            rows.add_row(level, str(n["tasks"]), _f(n["iwithin"]), _f(n["icross"]), _f(n["retention"]),
                         _f(n["retention_matched"]), _f(n["gap_raw"]), _f(n["gap_matched"]),
                         _f(n["gap_corrected"]) + _ci(n["gap_corrected_ci"]))
        parts += [header, rows, Text("")]
    return Group(*parts)


def table(results: list[dict]) -> Table:
    """Every number in one table (`--wide`): needs a wide terminal."""
    out = Table(title="cross-lingual policy retention", show_lines=False)
    for column in ("model", "benchmark", "T", "pair", "level", "n", "Iw src", "Iw tgt", "Iwithin", "Icross",
                   "retention", "ret matched [95% CI]", "dropped", "floor w/x", "gap raw [CI]", "gap matched [CI]",
                   "gap corrected [CI]", "failed", "mean len"):
        out.add_column(column, justify="left" if column in ("model", "benchmark", "pair", "level") else "right")
    for cell in results:
        failures = " ".join(f"{lang} {rate:.1%}" for lang, rate in cell["failure_rate_by_language"].items())
        rate = failures + ("" if cell["ranked"] else " unranked")
        length = " / ".join(f"{lang} {v:.1f}" for lang, v in cell["mean_length"].items())
        for level, n in cell["levels"].items():
            dropped = "" if n["matching_dropped"] is None else f"{n['matching_dropped']:.1%}"
            out.add_row(cell["model"], cell["benchmark"], f"{cell['temperature']:g}",
                        f"{cell['source']}→{cell['target']}", level, str(n["tasks"]),
                        _f(n["iwithin_source"]), _f(n["iwithin_target"]), _f(n["iwithin"]), _f(n["icross"]),
                        _f(n["retention"]), _f(n["retention_matched"]) + _ci(n["retention_matched_ci"]), dropped,
                        f"{_f(n['floor_within'])}/{_f(n['floor_cross'])}", _f(n["gap_raw"]) + _ci(n["gap_raw_ci"]),
                        _f(n["gap_matched"]) + _ci(n["gap_matched_ci"]),
                        _f(n["gap_corrected"]) + _ci(n["gap_corrected_ci"]), rate, length)
    return out


def summary_table(summary: dict) -> Group:
    """The paper-shaped summary (summary.py), at 80 columns: a row per temperature and kind."""
    rows = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1),
                 title="summary over ranked cells (level full)", title_justify="left")
    for column in ("T", "row", "cells", "Iwithin", "Icross", "retention", "gap", "gap corr", "> 0", "CI > 0"):
        rows.add_column(column, justify="left" if column in ("row",) else "right", no_wrap=True)
    for r in summary["rows"]:
        rows.add_row(f"{r['temperature']:g}", r["row"], str(r["cells"]), _f(r["iwithin"]), _f(r["icross"]),
                     _f(r["retention"]), _f(r["gap"]), _f(r["gap_corrected"]), str(r["positive_gaps"]),
                     str(r["intervals_excluding_zero"]))
    lines = [rows]
    for temperature, m in summary["across_models"]["per_temperature"].items():
        lines.append(Text(f"T={temperature}: {m['models']} models, band of matched retention {_f(m['band'])}, "
                          f"variance explained by model {_f(m['variance_explained_by_model'])}"))
    for pair, rho in summary["across_models"]["rank_correlation_of_corrected_gaps"].items():
        lines.append(Text(f"rank correlation of models' corrected gaps, T {pair}: {_f(rho)}"))
    shares = [f"{lang} {v['translate_call_share']:.1%}" for lang, v in summary["languages"].items()
              if v["translate_call_share"]]
    if shares:
        lines.append(Text("Translate-like tool calls: " + joined(shares, 12) + (" (--json has all)" if len(shares) > 12 else "")))
    thoughts = [f"{lang} {v['thoughts_ascii_share']:.0%}" for lang, v in summary["languages"].items()
                if v["thoughts_ascii_share"] is not None]
    if thoughts:
        lines.append(Text("ASCII share of reasoning: " + joined(thoughts, 12) + (" (--json has all)" if len(thoughts) > 12 else "")))
    return Group(*lines)


def write_json(results, path: Path) -> None:
    from jtau.write import atomic_write

    atomic_write(path, orjson.dumps(results, option=orjson.OPT_INDENT_2) + b"\n")


def plot(results: list[dict], path: Path, level: str = "full") -> None:
    """Matched retention per model (x) with its bootstrap interval: one panel per temperature,
    one marker series per benchmark and language pair."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'jtau[plot]'") from None
    models = sorted({cell["model"] for cell in results})
    temperatures = sorted({cell["temperature"] for cell in results})
    series = sorted({(cell["benchmark"], cell["source"], cell["target"]) for cell in results})
    fig, axes = plt.subplots(1, len(temperatures), figsize=(max(6, 1.2 * len(models) + 3) * len(temperatures), 4.5),
                             squeeze=False, sharey=True)
    width = 0.8 / max(1, len(series))
    for ax, temperature in zip(axes[0], temperatures):
        for k, (benchmark, source, target) in enumerate(series):
            xs, ys, lo, hi = [], [], [], []
            for i, model in enumerate(models):
                cell = next((c for c in results if c["model"] == model and c["benchmark"] == benchmark
                             and c["temperature"] == temperature and (c["source"], c["target"]) == (source, target)),
                            None)
                numbers = cell["levels"][level] if cell else None
                if numbers is None or numbers["retention_matched"] is None:
                    continue
                value = numbers["retention_matched"]
                ci = numbers["retention_matched_ci"] or [value, value]
                xs.append(i - 0.4 + width * (k + 0.5))
                ys.append(value)
                lo.append(max(0.0, value - ci[0]))
                hi.append(max(0.0, ci[1] - value))
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=f"{benchmark} {source}→{target}")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(models)), models, rotation=20, ha="right")
        ax.set_title(f"T={temperature:g}")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel(f"matched retention Icross / Iwithin ({level})")
    fig.suptitle("Cross-lingual policy retention (95% bootstrap interval)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
