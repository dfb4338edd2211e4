"""Benchmark: what reading and reporting an experiment costs, against the tau2 run it reads.

1. A golden experiment (the scripted models of `jtau experiment calibrate`): airline's tasks, arms
   en and ja, 2 trials; the run's wall time, then the time to read the folder back and compute
   the whole report (traces, retention with bootstrap intervals, details, decomposition,
   Markdown): target at most 5% of the run.
2. The same report over 100,000 simulations (the golden ones copied into more trials with new
   seeds: with --tasks 10, 2,500 trials of each task and arm, 3 million pairs of rollouts a task
   and side), as a whole `jtau experiment report` process, beside the time to merely read the same
   folder (experiment_traces): target under 60 s and 4 GB.

    python scripts/benchmarks/bench_experiment.py [--tasks N] [--simulations 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def report_in_process(folder: Path) -> float:
    from jtau.experiment.load import experiment_traces
    from jtau.maps import project_maps
    from jtau.retention.canonical import Canonicalizer
    from jtau.retention.corpus import analyze
    from jtau.retention.report import markdown

    start = time.perf_counter()
    manifest, traces = experiment_traces(folder)
    result = analyze(traces, Canonicalizer(project_maps()), "en", None, 1000, 1000, details=True)
    markdown(result.cells, manifest, result.decomposition)
    return time.perf_counter() - start


def enlarge(folder: Path, target: Path, simulations: int) -> int:
    """Copy an experiment's simulations into more trials (new seeds) until there are `simulations`."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(folder / "experiment.json", target / "experiment.json")
    files = sorted((folder / "simulations").glob("*/*/*.json"))
    records = [orjson.loads(p.read_bytes()) for p in files]
    originals = [(p.relative_to(folder), r) for p, r in zip(files, records) if r["jtau"]["trial"] == 0]
    written, trial = 0, 0
    while written < simulations:
        for relative, record in originals:
            if written >= simulations:
                break
            record = {**record, "jtau": {**record["jtau"], "trial": trial, "seed": 1000 + trial},
                      "simulation": {**record["simulation"], "trial": trial, "seed": 1000 + trial}}
            path = target / relative.parent / relative.name.replace(".0.json", f".{trial}.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(orjson.dumps(record))
            written += 1
        trial += 1
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=None, help="airline tasks (default: all 50)")
    parser.add_argument("--simulations", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="keep the experiment folders here")
    args = parser.parse_args()
    import jtau.runtime  # noqa: F401 - quiets tau2's import-time logging
    from jtau.experiment.calibrate import calibrate

    work = Path(tempfile.mkdtemp(prefix="jtau-bench-exp-")) if not args.keep else args.keep
    golden = work / "golden"
    start = time.perf_counter()
    result = calibrate(golden, ["airline"], ["en", "ja"], ["user_simulator_ja"], 2, num_tasks=args.tasks,
                       concurrency=4, bootstrap=0)
    run_seconds = time.perf_counter() - start
    if result.problems:
        print("the golden experiment is not exact:", result.problems[:5])
        return 1
    count = len(list((golden / "simulations").glob("*/*/*.json")))
    report_seconds = report_in_process(golden)
    share = report_seconds / run_seconds
    print(f"golden experiment: {count} simulations run in {run_seconds:.1f} s; read and report {report_seconds:.2f} s "
          f"= {share:.1%} of the run (target 5%: {'met' if share <= 0.05 else 'MISSED'})")

    large = work / "large"
    written = enlarge(golden, large, args.simulations)
    start = time.perf_counter()  # the baseline: merely reading the same folder with the same loader
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from jtau.experiment.load import "
                    "experiment_traces; experiment_traces(Path(sys.argv[1]))", str(large)], check=True)
    read_seconds = time.perf_counter() - start
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "jtau", "experiment", "report", str(large)], capture_output=True,
                          text=True)
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 2**20  # KiB -> GiB
    if done.returncode != 0:
        print("report failed:", done.stderr.strip().splitlines()[-1:])
        return 1
    print(f"jtau experiment report of {written:,} simulations: {seconds:.1f} s = {seconds / read_seconds:.2f}x the "
          f"{read_seconds:.1f} s to read them, peak {peak:.2f} GiB "
          f"(targets 60 s and 4 GB: {'met' if seconds < 60 and peak < 4 else 'MISSED'})")
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
