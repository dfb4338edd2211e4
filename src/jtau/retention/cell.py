"""What one cell of the analysis is (analysis.analyze_pair) and each of its levels: the fields the
report, the summary, the JSON and calibration read, with their meaning; and a Study, what the
analysis of a whole corpus returns (corpus.analyze).  TypedDicts, so that the
JSON written is the cell as it is and a reader's key is checked by mypy.  Definitions of the
numbers: analysis.py's docstring.  (No postponed annotations here: Python 3.11 would count the
NotRequired fields as required.)"""

from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

Interval = list[float] | None  # a 95% bootstrap interval [low, high], or None (fewer than 2 tasks, no bootstrap)


class Level(TypedDict):
    """The numbers of one level of comparison ("route": the tools called; "full": with arguments)."""
    tasks: int                      # tasks with a within pair on both sides and a cross pair
    pairs_within: int               # pairs of rollouts of one task on one side
    pairs_cross: int                # pairs of rollouts of one task, one from each side
    empty_pairs_excluded: int       # pairs where neither rollout called a tool (left out)
    baseline: str                   # what retention divides by: pooled, source or target
    iwithin: float | None           # mean similarity within a side (of the baseline)
    iwithin_pooled: float | None
    iwithin_source: float | None
    iwithin_target: float | None
    icross: float | None            # mean similarity across the sides
    retention: float | None         # icross / iwithin
    iwithin_matched: float | None   # the same, cross pairs matched to within pairs of their lengths
    icross_matched: float | None
    retention_matched: float | None
    matching_dropped: float | None  # share of the cross pairs no within pair of the same length matched
    gap_raw: float | None           # iwithin - icross
    gap_naive: float | None         # (the same: the paper's name)
    gap_matched: float | None
    gap_corrected: float | None     # the matched gap minus the chance floors' difference
    floor_within: float | None      # similarity of different tasks' rollouts: chance
    floor_cross: float | None
    floor: float | None
    iwithin_corrected: float | None  # above chance
    icross_corrected: float | None
    retention_corrected: float | None
    gap_raw_ci: Interval
    gap_matched_ci: Interval
    gap_corrected_ci: Interval
    retention_matched_ci: Interval
    retention_ci: Interval


class Cell(TypedDict):
    """One model x benchmark x temperature x runtime x retrieval x pair of sides."""
    model: str
    benchmark: str
    temperature: float
    runtime: str | None
    retrieval: str | None
    source: str                     # the sides' labels: a language, with its customer where it has one
    target: str
    source_user: str | None
    target_user: str | None
    rollouts: int
    failures: int                   # rollouts that did not parse or failed
    failure_rate: float
    failure_rate_by_language: dict[str, float]
    failures_by_language: dict[str, dict[str, int]]
    ranked: bool                    # False where a side failed more than 20% (shown, not ranked)
    unranked_because: list[str]
    mean_length: dict[str, float]   # actions a rollout, per side
    tool_share: dict[str, dict[str, float]]
    levels: dict[str, Level]        # "route" and "full"
    warnings: list[str]
    comparable: bool                # every level has a task to compare
    usage: dict[str, dict]          # per side: agent, customer and judge money and tokens (usage.py)
    signatures: dict[str, str]      # per side: the protocol, sacrebleu-style (analysis.signature)
    provenance: dict[str, dict[str, list[str]]]  # per side: jtau versions and dataset digests recorded
    retention_unmeasured: NotRequired[str]  # why retention is not measured (each task ran once)
    # with details (outcomes.py): rewards, answer vs action, per task, diagnostics
    reward: NotRequired[dict]
    reward_differs: NotRequired[dict]
    answer_vs_action: NotRequired[dict]
    tasks: NotRequired[list[dict]]
    diagnostics: NotRequired[dict]


@dataclass
class Study:
    """What the analysis of a corpus found: one result per cell, the paper-shaped summary
    (summary.py), the decomposition of the arms (decompose.py; empty without details)."""
    cells: list[Cell]
    summary: dict = field(default_factory=dict)
    decomposition: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """{cells, summary, decomposition}: what the JSON report holds."""
        return {"cells": self.cells, "summary": self.summary, "decomposition": self.decomposition}
