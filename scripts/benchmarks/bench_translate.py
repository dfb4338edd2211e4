"""Benchmark: machine-translation throughput against a local endpoint with injected latency.

Starts the test suite's fake chat-completions server on 127.0.0.1 (every request takes
LATENCY seconds), localizes a domain with an empty translation memory, and prints the
segments per second achieved over the ideal for the configured concurrency and batch size
(all requests perfectly overlapped: ceil(requests / concurrency) x latency).

    python scripts/benchmarks/bench_translate.py [--latency 0.2] [--concurrency 4] [--batch-size 8]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402
from jtau.pipeline import Options, localize  # noqa: E402
from jtau.project import Project  # noqa: E402
from jtau.translate.client import Endpoint, Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain", nargs="?", default="airline")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()
    with FakeOpenAI(latency=args.latency) as fake, tempfile.TemporaryDirectory() as tmp:
        options = Options(tm=Path(tmp), endpoint=Endpoint("bench", fake.url, "sk-bench"),
                          settings=Settings(concurrency=args.concurrency, batch_size=args.batch_size))
        result = localize(args.domain, Project.find(), options=options)
    stats, seconds = result.translation, result.timings["translate"]
    ideal_seconds = math.ceil(stats.requests / args.concurrency) * args.latency
    achieved, ideal = stats.sent / seconds, stats.sent / ideal_seconds
    print(f"{stats.sent} segments in {stats.requests} requests; latency {args.latency:g} s, "
          f"concurrency {args.concurrency}, batch size {args.batch_size}")
    print(f"translate stage: {seconds:.2f} s; ideal {ideal_seconds:.2f} s")
    print(f"segments/s: achieved {achieved:.1f}, ideal {ideal:.1f}, ratio {achieved / ideal:.2f}")


if __name__ == "__main__":
    main()
