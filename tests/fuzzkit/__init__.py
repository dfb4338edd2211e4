"""Property-based fuzzing of every input kind jtau reads: valid inputs of the real data,
mutated by Hypothesis, run through the real command; see harness.py for what a case may end in
and kinds.py for the kinds.  `tests/cli/test_fuzz_inputs.py` runs a few cases of each kind in the
suite; `tests/fuzzkit` (its __main__.py) runs many and prints the table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from . import retention  # noqa: F401 - registers the retention kinds (after those of kinds.py)
from .harness import FAILURES, OUTCOMES, Outcome, run_case
from .kinds import KINDS, Kind, register

__all__ = ["FAILURES", "KINDS", "Kind", "OUTCOMES", "Outcome", "fuzz", "register", "run_case", "table", "warm_up"]


def warm_up(full: bool = True) -> None:
    """Import (and with `full`, read and localize once) in this process what the cases need:
    the forked children start warm."""
    from translate.storage import po  # noqa: F401

    import jtau.cli  # noqa: F401
    import jtau.pipeline  # noqa: F401

    from . import kinds

    if full:
        for domain in kinds.FAST:
            kinds.baseline(domain)
            for fmt in kinds.FORMATS:
                kinds.exported(domain, fmt)


def fuzz(kind: Kind, cases: int, seed: int, on_case: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run at least `cases` generated cases of `kind` (Hypothesis seeded with `seed`; more
    passes with the next seeds if one pass ends early); every outcome, in order."""
    outcomes: list[Outcome] = []

    @settings(max_examples=cases, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(case=kind.strategy)
    def one(case) -> None:
        outcome = run_case(case)
        outcomes.append(outcome)
        if on_case:
            on_case(outcome)

    passes = 0
    while len(outcomes) < cases:
        before = len(outcomes)
        hypothesis_seed(seed + passes)(one)()
        passes += 1
        if len(outcomes) == before:
            break
    return outcomes


COLUMNS = ("cases", "tracebacks", "hangs", "wrong output with exit 0", "partial writes", "unclear errors",
           "over memory", "bad exit codes", "ok / refused", "slowest s", "most MB")


def row(kind: Kind, outcomes: list[Outcome]) -> dict[str, str]:
    counts = Counter(o.outcome for o in outcomes)
    return {"input kind": kind.title, "cases": str(len(outcomes)), "tracebacks": str(counts["traceback"]),
            "hangs": str(counts["hang"]), "wrong output with exit 0": str(counts["wrong"]),
            "partial writes": str(counts["partial"]), "unclear errors": str(counts["unclear"]),
            "over memory": str(counts["memory"]), "bad exit codes": str(counts["bad exit"]),
            "ok / refused": f"{counts['ok']} / {counts['refused']}",
            "slowest s": f"{max((o.seconds for o in outcomes), default=0):.1f}",
            "most MB": f"{max((o.memory_mb for o in outcomes), default=0):.0f}"}


def table(rows: list[dict[str, str]]) -> str:
    """A Markdown table: a row per input kind, a column per count."""
    header = ["input kind", *COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r[h] for h in header) + " |" for r in rows]
    return "\n".join(lines)

