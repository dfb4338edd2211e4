"""Benchmark: `jtau verify` per domain on this machine: wall time, seconds per task, peak
memory, against the targets (airline, retail and banking_knowledge under 0.5 s a task,
telecom's 2,285 tasks under 2 minutes, under 1 GB), for one worker and for one per CPU.
banking_knowledge runs on tau2-bench 1.0.1 only (left out elsewhere).

    python scripts/benchmarks/bench_verify.py [airline retail telecom banking_knowledge] [--jobs N ...]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time

TASKS = {"airline": 50, "retail": 114, "telecom": 2285, "banking_knowledge": 97}
TARGET = {"airline": 0.5 * 50, "retail": 0.5 * 114, "telecom": 120.0, "banking_knowledge": 0.5 * 97}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from jtau.runtime.domains import runtime_domain

    parser.add_argument("domains", nargs="*", default=[d for d in TASKS if runtime_domain(d).runs_here()])
    parser.add_argument("--jobs", type=int, nargs="*", default=[1, os.cpu_count() or 1])
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs")
    for domain in args.domains:
        for jobs in dict.fromkeys(args.jobs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "jtau", "verify", domain, "--jobs", str(jobs)],
                                  capture_output=True, text=True)
            wall = time.perf_counter() - start
            peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024 ** 2
            summary = re.search(r"(\d+)/(\d+) tasks commute", done.stdout)
            print(f"{domain:8} jobs {jobs}: {wall:6.1f} s, {wall / TASKS[domain]:.3f} s a task, "
                  f"{summary.group(0) if summary else 'exit ' + str(done.returncode)}, peak memory {peak:.2f} GiB "
                  f"(largest process); target {TARGET[domain]:.0f} s -> {'met' if wall < TARGET[domain] else 'missed'}")


if __name__ == "__main__":
    main()
