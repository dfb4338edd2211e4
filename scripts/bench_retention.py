"""Benchmark: `jtau retention analyze` at the paper's scale on this machine.

Generates a synthetic trace corpus of the size and shape the paper analysed -- 2.38M
rollouts in 505 cells (101 models x 5 benchmark/temperature settings; 1,178 tasks x 2
languages x 2 replicates per cell; ~6 actions a rollout, 2% parse failures, 3% empty traces,
the target language drifting from the source) -- then runs the analysis in a child process
and reports its wall time and peak memory (target: under 10 minutes, under 8 GB).

    python scripts/bench_retention.py [--cells 505] [--tasks 1178] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

TOOLS = [f"tool_{i}" for i in range(15)]


def rollout(rng: random.Random, base: list, drift: float) -> tuple[bool, list]:
    if rng.random() < 0.02:
        return False, []
    if rng.random() < 0.03:
        return True, []
    actions = []
    for action in base:
        roll = rng.random()
        if roll < drift:
            continue                                      # dropped
        if roll < 2 * drift:
            actions.append({"tool": rng.choice(TOOLS), "args": {"id": f"x{rng.randrange(50)}"}})
        actions.append(action)
    return True, actions


def generate(path: Path, cells: int, tasks: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    settings = [(f"bench{b}", t) for b, t in (("0", 0.0), ("1", 0.0), ("2", 0.0), ("0", 0.5), ("1", 0.5))]
    count = 0
    with path.open("wb") as out:
        for cell in range(cells):
            model = f"model_{cell // len(settings):03d}"
            benchmark, temperature = settings[cell % len(settings)]
            drift = 0.03 + 0.1 * rng.random()
            lines = []
            for task in range(tasks):
                base = [{"tool": rng.choice(TOOLS), "args": {"id": f"x{rng.randrange(50)}"}}
                        for _ in range(max(1, int(rng.gauss(6, 2))))]
                for language, noise in (("en", drift / 3), ("ja", drift)):
                    for replicate in (0, 1):
                        parsed, actions = rollout(rng, base, noise)
                        lines.append(orjson.dumps({
                            "model": model, "benchmark": benchmark, "language": language,
                            "temperature": temperature, "replicate": replicate, "task_id": f"t{task}",
                            "parsed": parsed, "actions": actions}))
            out.write(b"\n".join(lines) + b"\n")
            count += len(lines)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=505)
    parser.add_argument("--tasks", type=int, default=1178)
    parser.add_argument("--keep", type=Path, help="Keep the corpus and the results in this folder.")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="jtau-retention-"))
    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / "traces.jsonl"
    start = time.perf_counter()
    rollouts = generate(corpus, args.cells, args.tasks)
    print(f"generated {rollouts:,} rollouts in {args.cells} cells ({corpus.stat().st_size / 1e9:.2f} GB) "
          f"in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "jtau", "retention", "analyze", str(corpus),
                           "--json", str(folder / "results.json")], stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 ** 2  # KiB -> GiB
    print(f"analyze: exit {done.returncode}, wall {wall:.0f} s ({wall / 60:.1f} min), peak memory {peak:.2f} GiB")
    print(f"targets: under 10 min -> {'met' if wall < 600 else 'MISSED'}; under 8 GB -> "
          f"{'met' if peak < 8 else 'MISSED'}")
    if not args.keep:
        corpus.unlink()


if __name__ == "__main__":
    main()
