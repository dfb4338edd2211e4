"""Present the analysis: a rich table per cell and level, the JSON file, the plot."""

from __future__ import annotations

from pathlib import Path

import orjson
from rich.console import Group
from rich.table import Table
from rich.text import Text

from jtau.errors import InputError
from jtau.retention.cell import Cell
from jtau.util.files import atomic_write
from jtau.util.listing import counted, joined


def _f(value, digits: int = 3) -> str:
    """A number as the report prints it (never "-0.000": a rounding of a tiny negative)."""
    return "–" if value is None else f"{round(value, digits) + 0.0:.{digits}f}"


def _ci(interval) -> str:
    return f" [{_f(interval[0])}, {_f(interval[1])}]" if interval else ""


def header(cell: Cell) -> Text:
    """A cell's first line: model, benchmark, runtime, T, retrieval, pair, failures, length."""
    failures = ", ".join(f"{lang} {rate:.1%}" for lang, rate in cell["failure_rate_by_language"].items())
    length = " / ".join(f"{lang} {v:.1f}" for lang, v in cell["mean_length"].items())
    where = " · ".join(p for p in (cell.get("runtime"), cell.get("retrieval")) if p)
    user = cell.get("target_user")
    customer = f" ({user})" if user and user != "user_simulator" and "[" not in cell["target"] else ""
    return Text.assemble((f"{cell['model']} · {cell['benchmark']} · {where + ' · ' if where else ''}"
                          f"T={cell['temperature']:g} · {cell['source']}→{cell['target']}{customer}", "bold"),
                         f"  failed {failures}", ("" if cell["ranked"] else ("  unranked", "red")),
                         f"  len {length}")


def level_rows(cell: Cell) -> Table:
    rows = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1))
    for column in ("level", "n", "Iwithin", "Icross", "ret", "ret m", "gap raw", "gap m", "gap corr [95% CI]"):
        rows.add_column(column, justify="left" if column == "level" else "right", no_wrap=True)
    for level, n in cell["levels"].items():
        rows.add_row(level, str(n["tasks"]), _f(n["iwithin"]), _f(n["icross"]), _f(n["retention"]),
                     _f(n["retention_matched"]), _f(n["gap_raw"]), _f(n["gap_matched"]),
                     _f(n["gap_corrected"]) + _ci(n["gap_corrected_ci"]))
    return rows


def reward_line(cell: Cell) -> Text:
    parts = []
    for label, r in cell["reward"].items():
        passes = " ".join(f"pass^{k} {_f(v)}" for k, v in r["pass_hat_k"].items())
        parts.append(f"{label} {_f(r['mean'])} ({r['simulations']} sims{', ' + passes if passes else ''})")
    differs = cell["reward_differs"]
    return Text(f"reward  {'   '.join(parts)}   differs on {counted(len(differs), 'task')}"
                + (f" ({joined(differs, 8)})" if differs else ""))


def _cost(value) -> str:
    return "–" if value is None else f"${value:,.4f}"


def _tokens(u: dict, who: str) -> str:
    prompt, completion = u.get(f"{who}_prompt_tokens"), u.get(f"{who}_completion_tokens")
    return "–" if prompt is None and completion is None else f"{prompt or 0:,}+{completion or 0:,}"


def usage_rows(cell: Cell) -> list[list[str]]:
    """Per side: simulations, agent, customer and judge cost, total, per simulation, tokens."""
    return [[label, str(u["simulations"]), _cost(u.get("agent_cost")), _cost(u.get("customer_cost")),
             _cost(u.get("judge_cost")), _cost(u["total_cost"]), _cost(u["cost_per_simulation"]),
             _tokens(u, "agent"), _tokens(u, "customer"), _tokens(u, "judge")]
            for label, u in cell.get("usage", {}).items()]


USAGE_HEADER = ["side", "simulations", "agent $", "customer $", "judge $", "total $", "$ / simulation",
                "agent tokens (in+out)", "customer tokens", "judge tokens"]


def usage_line(cell: Cell) -> Text | None:
    parts = [f"{label} {_cost(u['total_cost'])} ({_cost(u['cost_per_simulation'])}/sim; "
             f"agent {_cost(u.get('agent_cost'))}, customer {_cost(u.get('customer_cost'))}, "
             f"judge {_cost(u.get('judge_cost'))}; tokens agent "
             f"{_tokens(u, 'agent')}, customer {_tokens(u, 'customer')}, judge {_tokens(u, 'judge')})"
             for label, u in cell.get("usage", {}).items()]
    return Text("cost  " + "   ".join(parts)) if parts else None


def signature_rows(label: str, signature: str, width: int = 80) -> list[str]:
    """A side's signature in rows of at most `width` characters, broken after a `|` (readable at 80
    columns and in a log; the JSON and the Markdown hold it in one line)."""
    rows, row = [], f"signature {label}: "
    for field in signature.split("|"):
        if len(row) + len(field) + 1 > width and row.strip():
            rows.append(row)
            row = "  "
        row += field + "|"
    rows.append(row.rstrip("|"))
    return rows


def failure_line(cell: Cell) -> Text | None:
    shown = [f"{label}: " + ", ".join(f"{reason} {n}" for reason, n in reasons.items())
             for label, reasons in cell["failures_by_language"].items() if reasons]
    return Text("failures  " + "; ".join(shown)) if shown else None


DIAGNOSTICS = (("first-turn stops", "first_turn_stops", "{:d}"), ("turns a conversation", "turns_mean", "{:.1f}"),
               ("agent messages in Japanese", "agent_japanese_share", "{:.0%}"),
               ("customer messages in Japanese", "user_japanese_share", "{:.0%}"),
               ("name-order errors", "name_order_errors", "{:d}"),
               ("parameter-language errors", "parameter_language_errors", "{:d}"),
               ("judge guard (conversations)", "judge_guard", "{:d}"))


def diagnostics_table(cell: Cell) -> Table:
    table = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1))
    labels = list(cell["diagnostics"])
    table.add_column("diagnostics", no_wrap=True)
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True)
    for name, key, form in DIAGNOSTICS:
        values = [cell["diagnostics"][label].get(key) for label in labels]
        table.add_row(name, *("–" if v is None else form.format(v) for v in values))
    return table


def _step_at(route: list[str], index: int) -> str:
    return route[index] if index < len(route) else "(end)"


def parted_line(cell: Cell, limit: int = 5) -> Text | None:
    parted = [t for t in cell["tasks"] if t["parted_at"] is not None]
    if not parted:
        return None
    source, target = cell["source"], cell["target"]
    shown = []
    for t in parted[:limit]:
        index = t["parted_at"]
        a, b = t["route"][source], t["route"][target]
        shown.append(f"task {t['task_id']} at step {index + 1}: {_step_at(a, index)} vs {_step_at(b, index)}")
    more = f"; and {len(parted) - limit} more (--json, the Markdown report)" if len(parted) > limit else ""
    return Text(f"routes part in {counted(len(parted), 'task')}: " + "; ".join(shown) + more)


def blocks(results: list[Cell]) -> Group:
    """The default report, readable at 80 columns and in a log: per cell a header line (model,
    benchmark, runtime, T, pair, failures per side, mean length), then a row per level: naive and
    matched retention, and the raw, matched and corrected gaps side by side; with details (an
    experiment, `--details`) the rewards, answer vs action, failures, diagnostics and the tasks
    whose routes part."""
    parts: list[Text | Table] = []
    for cell in results:
        parts += [header(cell)]
        if "reward" in cell:
            parts.append(reward_line(cell))
        if (line := usage_line(cell)) is not None:
            parts.append(line)
        for label, signature in cell.get("signatures", {}).items():
            parts += [Text(row) for row in signature_rows(label, signature)]
        parts.append(level_rows(cell))
        if cell.get("retention_unmeasured"):
            parts.append(Text(f"retention not measured: {cell['retention_unmeasured']}"))
        if "reward" in cell:
            a = cell["answer_vs_action"]
            parts.append(Text(f"answer vs action: {a['same_reward_different_route']} of {a['tasks']} tasks have "
                              "the same reward on both sides and a different route"))
            parts += [line for line in (failure_line(cell), parted_line(cell)) if line is not None]
            parts.append(diagnostics_table(cell))
        parts.append(Text(""))
    return Group(*parts)


def table(results: list[Cell]) -> Table:
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
    lines: list[Text | Table] = [rows]
    for temperature, m in summary["across_models"]["per_temperature"].items():
        lines.append(Text(f"T={temperature}: {counted(m['models'], 'model')}, "
                          f"band of matched retention {_f(m['band'])}, "
                          f"variance explained by model {_f(m['variance_explained_by_model'])}"))
    for pair, rho in summary["across_models"]["rank_correlation_of_corrected_gaps"].items():
        lines.append(Text(f"rank correlation of models' corrected gaps, T {pair}: {_f(rho)}"))
    shares = [f"{lang} {v['translate_call_share']:.1%}" for lang, v in summary["languages"].items()
              if v["translate_call_share"]]
    if shares:
        more = " (--json has all)" if len(shares) > 12 else ""
        lines.append(Text("Translate-like tool calls: " + joined(shares, 12) + more))
    thoughts = [f"{lang} {v['thoughts_ascii_share']:.0%}" for lang, v in summary["languages"].items()
                if v["thoughts_ascii_share"] is not None]
    if thoughts:
        more = " (--json has all)" if len(thoughts) > 12 else ""
        lines.append(Text("ASCII share of reasoning: " + joined(thoughts, 12) + more))
    return Group(*lines)


def write_json(results, path: Path) -> None:
    atomic_write(path, orjson.dumps(results, option=orjson.OPT_INDENT_2) + b"\n")


def plot(results: list[Cell], path: Path, level: str = "full") -> None:
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


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows), ""]


def markdown(results: list[Cell], manifest: dict | None = None, decomposition: list[dict] | None = None) -> str:
    """The report as Markdown: the experiment's provenance, then per cell its rewards, failures,
    retention at both levels, answer vs action, diagnostics, and every task whose route parts
    or whose reward differs."""
    lines = ["# Cross-lingual experiment report", ""]
    if manifest:
        plan = manifest["plan"]
        lines += [f"- experiment `{manifest.get('id')}`, jtau {manifest.get('jtau')}, {manifest.get('runtime')}",
                  f"- agent `{plan['agent_llm']}` {orjson.dumps(plan['agent_llm_args']).decode()}, "
                  f"customer `{plan['user_llm']}` ({', '.join(plan['users'])})",
                  f"- {plan['trials']} trials from seed {plan['seed']}; arms {', '.join(plan['arms'])}"
                  + (f"; retrieval {plan['retrieval_config']}" if plan.get("retrieval_config") else ""),
                  "- J-tau datasets: " + ", ".join(f"{d} `{(digest or '-')[:12]}`"
                                                   for d, digest in manifest.get("datasets", {}).items()), ""]
    for cell in results:
        where = " · ".join(p for p in (cell.get("runtime"), cell.get("retrieval")) if p)
        lines += [f"## {cell['model']} · {cell['benchmark']} · {where + ' · ' if where else ''}"
                  f"T={cell['temperature']:g} · {cell['source']} → {cell['target']}", ""]
        if not cell["ranked"]:
            lines += [f"**Unranked**: {'; '.join(cell['unranked_because'])}.", ""]
        if cell.get("retention_unmeasured"):
            lines += [f"**Retention not measured**: {cell['retention_unmeasured']}.", ""]
        if "reward" in cell:
            ks = sorted({k for r in cell["reward"].values() for k in r["pass_hat_k"]}, key=int)
            rows = [[label, _f(r["mean"]), str(r["simulations"]), *(_f(r["pass_hat_k"].get(k)) for k in ks),
                     f"{cell['failure_rate_by_language'].get(label, 0):.1%}",
                     ", ".join(f"{k} {n}" for k, n in cell["failures_by_language"].get(label, {}).items()) or "–"]
                    for label, r in cell["reward"].items()]
            lines += _md_table(["side", "reward", "simulations", *(f"pass^{k}" for k in ks), "failed", "failures"],
                               rows)
        if cell.get("usage"):
            lines += _md_table(USAGE_HEADER, usage_rows(cell))
        if cell.get("signatures"):
            lines += [f"Signature of {label}: `{line}`  " for label, line in cell["signatures"].items()] + [""]
        rows = [[level, str(n["tasks"]), _f(n["iwithin"]), _f(n["icross"]), _f(n["retention"]),
                 _f(n["retention_matched"]) + _ci(n["retention_matched_ci"]), _f(n["gap_raw"]) + _ci(n["gap_raw_ci"]),
                 _f(n["gap_matched"]) + _ci(n["gap_matched_ci"]), _f(n["gap_corrected"]) + _ci(n["gap_corrected_ci"])]
                for level, n in cell["levels"].items()]
        lines += _md_table(["level", "n", "Iwithin", "Icross", "retention", "matched [95% CI]", "gap raw [CI]",
                            "gap matched [CI]", "gap corrected [CI]"], rows)
        if "reward" not in cell:
            continue
        a = cell["answer_vs_action"]
        lines += [f"Answer vs action: {a['same_reward_different_route']} of {a['tasks']} tasks have the same reward "
                  f"on both sides and a different route" + (f" ({', '.join(a['task_ids'])})" if a["task_ids"] else "")
                  + f"; the reward differs on {len(cell['reward_differs'])}.", ""]
        labels = list(cell["diagnostics"])
        lines += _md_table(["diagnostic", *labels], [
            [name, *("–" if cell["diagnostics"][label].get(key) is None
                     else form.format(cell["diagnostics"][label][key]) for label in labels)]
            for name, key, form in DIAGNOSTICS])
        shown = [t for t in cell["tasks"] if t["parted_at"] is not None or t["task_id"] in cell["reward_differs"]]
        if shown:
            s, t_ = cell["source"], cell["target"]
            lines += _md_table(["task", f"reward {s}", f"reward {t_}", "Icross route", "Icross full", "parted at step",
                                f"route {s}", f"route {t_}"],
                               [[t["task_id"], _f(t["reward"][s]), _f(t["reward"][t_]), _f(t["icross"]["route"]),
                                 _f(t["icross"]["full"]), "–" if t["parted_at"] is None else str(t["parted_at"] + 1),
                                 " → ".join(t["route"][s] or []), " → ".join(t["route"][t_] or [])] for t in shown])
    if decomposition:
        lines += ["## Decomposition: text language x entity locale", ""]
        for d in decomposition:
            lines += [f"### {d['model']} · {d['benchmark']} · {d.get('runtime') or ''} · {d['measure']}", ""]
            lines += _md_table(["effect", "gap", "95% CI"], [[name, _f(v["gap"]), _ci(v["ci"]).strip() or "–"]
                                                           for name, v in d["effects"].items()])
    return "\n".join(lines).rstrip() + "\n"


def decomposition_table(decomposition: list[dict]) -> Group:
    """The 2x2's effects at 80 columns: per cell a title line, then per measure its gaps and, on
    the line below, their 95% intervals."""
    parts: list[Text | Table] = []
    seen: tuple | None = None
    for d in decomposition:
        cell = (d["model"], d["benchmark"], d.get("runtime"), d["temperature"], d.get("customer"))
        if cell != seen:
            seen = cell
            customer = f" · customer {d['customer']}" if d.get("customer") else ""
            parts.append(Text(f"decomposition of en → ja: {d['model']} · {d['benchmark']}{customer}", style="bold"))
            grid = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1))
            for column in ("measure", "n", "all", "entities", "text", "interaction"):
                grid.add_column(column, justify="left" if column == "measure" else "right", no_wrap=True)
            parts.append(grid)  # its rows follow (rich renders when printed)
        effects = [d["effects"][e] for e in ("all", "entities", "text", "interaction")]
        grid.add_row(d["measure"], str(d["tasks"]), *(_f(e["gap"]) for e in effects))
        grid.add_row("", "", *(f"[{_f(e['ci'][0], 2)}, {_f(e['ci'][1], 2)}]" if e["ci"] else "" for e in effects))
    return Group(*parts)


def check_plot() -> None:
    """--plot needs matplotlib: said before the analysis, not after it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install matplotlib") from None
