"""Fuzz every input kind jtau reads: structure-aware mutations of the real inputs,
each run through the real `jtau` command in a forked child, judged by tests/fuzzkit/harness.py.

    .venv/bin/python tests/fuzzkit --cases 1000 [--seed N] [--kind KIND ...] [--show N]

Without --seed one is drawn at random and printed first (run it again with that seed to see
the same cases).  Prints a line per failing case as it happens, then the table: per kind, the
cases run, tracebacks, hangs, wrong outputs with exit 0, partial writes, unclear errors, cases
over the memory budget, other exit codes, how many ended ok / refused, the slowest case and the
most memory one took.  Exit 1 if any case failed.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, which holds fuzzkit
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import fuzzkit  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="Cases per input kind (at least).")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed. Default: drawn at random.")
    parser.add_argument("--kind", action="append", choices=sorted(fuzzkit.KINDS), help="Only this kind (repeatable).")
    parser.add_argument("--show", type=int, default=20, help="Failing cases printed per kind.")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    print(f"seed {seed} ({args.cases} cases per kind)", flush=True)
    cache = Path(os.environ.setdefault("JTAU_CACHE", f"/tmp/jtau-fuzz-cache-{os.getpid()}"))
    fuzzkit.warm_up()
    rows, failed = [], 0
    for name in args.kind or list(fuzzkit.KINDS):
        kind = fuzzkit.KINDS[name]
        shown = 0
        started = time.monotonic()

        def report(outcome, kind=kind) -> None:
            nonlocal shown
            if outcome.outcome in fuzzkit.FAILURES and shown < args.show:
                shown += 1
                print(f"  {kind.name}: {outcome.outcome}: {outcome.note[:300]!r}\n"
                      f"    {outcome.detail.strip()[-600:]!r}", flush=True)

        outcomes = fuzzkit.fuzz(kind, args.cases, seed, report)
        rows.append(fuzzkit.row(kind, outcomes))
        failed += sum(o.outcome in fuzzkit.FAILURES for o in outcomes)
        print(f"{name}: {len(outcomes)} cases in {time.monotonic() - started:.0f} s", flush=True)
    print(f"\nseed {seed}\n")
    print(fuzzkit.table(rows))
    if cache.name.startswith("jtau-fuzz-cache-"):
        import shutil

        shutil.rmtree(cache, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
