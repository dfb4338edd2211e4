"""The README's retention example: golden trajectories as two "languages".

Writes trace files in which the airline source tasks' golden actions are language `en` and
J-tau airline's are language `ja` (two identical replicates each, as a perfectly stable agent
would give).  Once Japanese arguments are mapped back through the entity maps, they must come
out at retention 1.0.  `--perturb` makes the Japanese side prepend one extra
`get_user_details` call to every trace, a known, exactly computable loss.

    python scripts/examples/retention_golden_example.py OUT_DIR
    jtau retention analyze OUT_DIR/golden.jsonl
    jtau retention analyze OUT_DIR/golden_perturbed.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jtau.pipeline import load_repaired
from jtau.project import Project
from jtau.retention.traces import Trace, write_traces
from jtau.rules import load_rules


def traces(tasks: list[dict], language: str, benchmark: str, extra: dict | None = None) -> list[Trace]:
    out = []
    for task in tasks:
        actions = [{"tool": a["name"], "args": a["arguments"]} for a in task["evaluation_criteria"]["actions"] or []]
        if extra and actions:
            actions = [extra, *actions]
        for replicate in (0, 1):
            out.append(Trace("golden", benchmark, language, 0.0, replicate, task["id"], True, actions))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    project = Project.find()
    source, _ = load_repaired(load_rules("airline"), project)
    localized = json.loads((project.out("airline") / "tasks.json").read_text(encoding="utf-8"))
    english = traces(source.tasks, "en", "airline")
    extra = {"tool": "get_user_details", "args": {"user_id": "emi_kaneko_9957"}}
    n = write_traces(args.out / "golden.jsonl", english + traces(localized, "ja", "airline_ja"))
    write_traces(args.out / "golden_perturbed.jsonl", english + traces(localized, "ja", "airline_ja", extra))
    print(f"{n} traces in {args.out / 'golden.jsonl'} and {args.out / 'golden_perturbed.jsonl'}")


if __name__ == "__main__":
    main()
