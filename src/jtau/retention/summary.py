"""The paper-shaped summary over cells: what a reader of "Actions Speak Louder than Words"
expects beside the per-cell numbers.

- Per temperature, a `naive` and a `matched` row: means over ranked cells of Iwithin, Icross,
  retention and the gap (raw for naive, matched for matched), the mean corrected gap, how many
  cells have a positive corrected gap and how many of their intervals exclude zero.
- Across models (level `full`, matched retention of ranked cells): the band (max - min of the
  model means), the share of variance explained by model identity (eta squared), and the rank
  correlation (Spearman) of the model orderings by corrected gap between two temperatures.
  Rankings use corrected gaps: the paper warns that uncorrected gaps confound length and style.
- Per language: the share of tool calls that look like translation (a tool whose name contains
  "translat"), and, where traces carry `thoughts`, the ASCII share of the reasoning text (the
  paper's English-pivot signal).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations

import numpy as np

from jtau.retention.cell import Cell, Interval
from jtau.retention.traces import TRANSLATE


def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def excludes_zero(interval: Interval) -> bool:
    """Whether a bootstrap interval lies wholly on one side of 0."""
    return interval is not None and bool(interval) and (interval[0] > 0 or interval[1] < 0)


def temperature_rows(cells: list[Cell], level: str = "full") -> list[dict]:
    rows = []
    for temperature in sorted({c["temperature"] for c in cells}):
        ranked = [c["levels"][level] for c in cells if c["temperature"] == temperature and c["ranked"]]
        corrected = [n for n in ranked if n["gap_corrected"] is not None]
        base = {"temperature": temperature, "cells": len(ranked),
                "gap_corrected": _mean(n["gap_corrected"] for n in ranked),
                "positive_gaps": sum((n["gap_corrected"] or 0) > 0 for n in corrected),
                "intervals_excluding_zero": sum(excludes_zero(n["gap_corrected_ci"]) for n in corrected)}
        rows.append({**base, "row": "naive", "iwithin": _mean(n["iwithin"] for n in ranked),
                     "icross": _mean(n["icross"] for n in ranked), "retention": _mean(n["retention"] for n in ranked),
                     "gap": _mean(n["gap_raw"] for n in ranked)})
        rows.append({**base, "row": "matched", "iwithin": _mean(n["iwithin_matched"] for n in ranked),
                     "icross": _mean(n["icross_matched"] for n in ranked),
                     "retention": _mean(n["retention_matched"] for n in ranked),
                     "gap": _mean(n["gap_matched"] for n in ranked)})
    return rows


def _ranks(values: list[float]) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return ranks


def spearman(a: list[float], b: list[float]) -> float | None:
    if len(a) < 3:
        return None
    ra, rb = _ranks(a), _ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def across_models(cells: list[Cell], level: str = "full") -> dict:
    out = {}
    for temperature in sorted({c["temperature"] for c in cells}):
        by_model = defaultdict(list)
        for c in cells:
            value = c["levels"][level]["retention_matched"]
            if c["temperature"] == temperature and c["ranked"] and value is not None:
                by_model[c["model"]].append(value)
        means = {m: float(np.mean(v)) for m, v in by_model.items()}
        values = [v for vs in by_model.values() for v in vs]
        total = float(np.var(values)) * len(values) if values else 0.0
        between = sum(len(vs) * (np.mean(vs) - np.mean(values)) ** 2 for vs in by_model.values()) if values else 0.0
        out[f"{temperature:g}"] = {"models": len(means),
                                   "band": max(means.values()) - min(means.values()) if means else None,
                                   "variance_explained_by_model": float(between / total) if total else None}
    gaps: defaultdict[float, dict[str, list[float]]] = defaultdict(dict)
    for c in cells:
        value = c["levels"][level]["gap_corrected"]
        if c["ranked"] and value is not None:
            gaps[c["temperature"]].setdefault(c["model"], []).append(value)
    correlations = {}
    for t1, t2 in combinations(sorted(gaps), 2):
        shared = sorted(set(gaps[t1]) & set(gaps[t2]))
        correlations[f"{t1:g} vs {t2:g}"] = spearman([float(np.mean(gaps[t1][m])) for m in shared],
                                                      [float(np.mean(gaps[t2][m])) for m in shared])
    return {"per_temperature": out, "rank_correlation_of_corrected_gaps": correlations}


def language_counts(groups) -> dict[str, Counter]:
    """Per language: tool calls, Translate-like calls, ASCII and all characters of reasoning, parsed
    rollouts, rollouts with a Translate-like call (a language with tool calls counted has `calls`)."""
    counts: defaultdict[str, Counter] = defaultdict(Counter)
    for g in groups:
        for side, n in g.rollouts.items():
            counts[side.language]["parsed"] += n - g.failed[side]
            counts[side.language]["translating"] += g.translating[side]
        for side, counter in g.tools.items():
            counts[side.language]["calls"] += sum(counter.values())
            counts[side.language]["translate"] += sum(n for tool, n in counter.items() if TRANSLATE.search(tool))
        for side, (a, n) in g.thoughts.items():
            counts[side.language]["ascii"] += a
            counts[side.language]["chars"] += n
    return dict(counts)


def language_shares(counts: dict[str, Counter]) -> dict:
    """The per-language shares of `language_counts` (of several processes, added)."""
    return {language: {"translate_call_share": c["translate"] / c["calls"] if c["calls"] else None,
                       "translate_rollout_share": c["translating"] / c["parsed"] if c["parsed"] else None,
                       "thoughts_ascii_share": c["ascii"] / c["chars"] if c["chars"] else None}
            for language, c in sorted(counts.items()) if "calls" in c}


def summarize(cells: list[Cell], counts: dict[str, Counter]) -> dict:
    """The summary of `cells`, its languages from their rollouts' `counts` (language_counts)."""
    return {"rows": temperature_rows(cells), "across_models": across_models(cells),
            "languages": language_shares(counts)}
