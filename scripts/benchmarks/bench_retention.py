"""Benchmark: `jtau retention analyze` at the paper's scale on this machine.

Default (`--paper`): a paper-shaped corpus -- 8 models x 6 benchmarks x 2 temperatures, 41
languages (en and 40 targets), 300 tasks x 2 replicates: 2.36M rollouts, a five-tool alphabet,
~6 actions a rollout, 2% parse failures -- with a planted language effect of known size: in
target language k, a rollout starts with a `translate` call with probability p_k, and its
other actions drift with a rate that grows with k.  The analysis must recover p_k (its
Translate-like rollout share) and the ordering of the languages (rank correlation of their
mean corrected gap with the planted drift).  Prints time, peak memory, the targets (60 s, 4 GB)
and planted vs recovered, beside the baseline: the time to merely read the same file with the
same loader (retention/traces.py's read_traces, nothing analysed), and their ratio; the CPU time of
each (on a shared machine, the work done whatever the wait).  Peak memory
is the largest process's, and all of the analysis' processes' together (its workers: proportional
set size, sampled).

`--legacy` keeps the earlier corpus (505 cells of one language pair, 1,178 tasks each).
`--keep DIR --reuse` analyses the corpus kept in DIR by an earlier run of the same shape.

    python scripts/benchmarks/bench_retention.py [--legacy] [--tasks N] [--keep DIR [--reuse]]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

TOOLS = [f"tool_{i}" for i in range(15)]
PAPER_TOOLS = ["search", "lookup", "update", "cancel", "respond"]  # a five-tool alphabet


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


def planted() -> tuple[dict, dict]:
    """The paper-shaped corpus' planted p_k and drift per target language."""
    targets = [f"l{k:02d}" for k in range(40)]
    return ({lang: round(0.01 + 0.3 * k / 39, 4) for k, lang in enumerate(targets)},
            {lang: 0.02 + 0.10 * k / 39 for k, lang in enumerate(targets)})


def generate_paper(path: Path, tasks: int, seed: int = 0) -> int:
    """The paper-shaped corpus; returns the rollout count."""
    rng = random.Random(seed)
    planted_p, planted_drift = planted()
    targets = list(planted_p)
    count = 0
    with path.open("wb") as out:
        for model in range(8):
            skill = 0.02 * model
            for benchmark in range(6):
                for temperature in (0.0, 0.7):
                    lines = []
                    for task in range(tasks):
                        base = [{"tool": rng.choice(PAPER_TOOLS), "args": {"id": f"x{rng.randrange(20)}"}}
                                for _ in range(max(1, int(rng.gauss(6, 2))))]
                        for language in ["en", *targets]:
                            drift = 0.01 + temperature * 0.02 + (
                                skill + planted_drift[language] if language != "en" else 0)
                            for replicate in (0, 1):
                                parsed, actions = rollout(rng, base, drift)
                                if parsed and language != "en" and rng.random() < planted_p[language]:
                                    actions = [{"tool": "translate", "args": {}}, *actions]
                                lines.append(orjson.dumps({
                                    "model": f"model_{model}", "benchmark": f"bench{benchmark}", "language": language,
                                    "temperature": temperature, "replicate": replicate, "task_id": f"t{task}",
                                    "parsed": parsed, "actions": actions}))
                    out.write(b"\n".join(lines) + b"\n")
                    count += len(lines)
    return count


def recovered(results_path: Path, planted_p: dict, planted_drift: dict) -> None:
    import numpy as np

    data = orjson.loads(results_path.read_bytes())
    languages = data["summary"]["languages"]
    errors = [abs(languages[lang]["translate_rollout_share"] - p) for lang, p in planted_p.items()]
    print(f"planted Translate share p_k 0.010..0.310 over 40 languages: recovered with mean absolute error "
          f"{np.mean(errors):.4f} (max {max(errors):.4f})")
    gaps = {}
    for cell in data["cells"]:
        value = cell["levels"]["full"]["gap_corrected"]
        if value is not None:
            gaps.setdefault(cell["target"], []).append(value)
    langs = sorted(gaps)
    drift = np.argsort(np.argsort([planted_drift[lang] for lang in langs]))
    recovered_order = np.argsort(np.argsort([np.mean(gaps[lang]) for lang in langs]))
    rho = float(np.corrcoef(drift, recovered_order)[0, 1])
    print(f"planted language drift 0.02..0.12: rank correlation with the recovered mean corrected gap {rho:.3f}")
    rows = [r for r in data["summary"]["rows"]]
    for r in rows:
        print(f"  T={r['temperature']:g} {r['row']:7} cells {r['cells']:4}  Iwithin {r['iwithin']:.3f}  "
              f"Icross {r['icross']:.3f}  retention {r['retention']:.3f}  gap {r['gap']:.3f}  "
              f"gap corrected {r['gap_corrected']:.3f}  >0 {r['positive_gaps']}  CI>0 {r['intervals_excluding_zero']}")


READ = ("import sys\nfrom pathlib import Path\nfrom jtau.retention.traces import read_traces\n"
        "sum(1 for _ in read_traces([Path(sys.argv[1])]))")


def descendants(pid: int) -> list[int]:
    """A process and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        out.append(todo.pop())
        try:
            todo += [int(c) for t in os.listdir(f"/proc/{out[-1]}/task")
                     for c in Path(f"/proc/{out[-1]}/task/{t}/children").read_text().split()]
        except OSError:
            pass
    return out


def pss(pid: int) -> int:
    """A process' proportional set size in KiB (0 when gone)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("Pss:")), 0)


def measure(command: list[str], env: dict | None = None) -> tuple[int, float, float, float, float]:
    """Run a command: (exit code, wall s, peak GiB of its largest process, peak GiB of all its
    processes together, sampled every 0.1 s: 0 without /proc; CPU s of its processes)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    together, done = [0], threading.Event()

    def sample():
        while not done.wait(0.1):
            together[0] = max(together[0], sum(map(pss, descendants(process.pid))))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    return (os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024 ** 2, together[0] / 1024 ** 2,
            usage.ru_utime + usage.ru_stime)


def corpus(args, folder: Path) -> Path:
    """The corpus, generated, or reused with --reuse when an earlier run kept one of this shape."""
    path, stamp = folder / "traces.jsonl", folder / "corpus.json"
    shape = {"legacy": args.legacy, "cells": args.cells if args.legacy else None, "tasks": args.tasks}
    if args.reuse and path.exists() and stamp.exists() and orjson.loads(stamp.read_bytes())["shape"] == shape:
        rollouts = orjson.loads(stamp.read_bytes())["rollouts"]
        print(f"reused {rollouts:,} rollouts ({path}, {path.stat().st_size / 1e9:.2f} GB)")
        return path
    start = time.perf_counter()
    if args.legacy:
        rollouts = generate(path, args.cells, args.tasks or 1178)
        described = f"{args.cells} cells"
    else:
        rollouts = generate_paper(path, args.tasks or 300)
        described = "8 models x 6 benchmarks x 2 temperatures x 41 languages"
    stamp.write_bytes(orjson.dumps({"shape": shape, "rollouts": rollouts}))
    print(f"generated {rollouts:,} rollouts ({described}, {path.stat().st_size / 1e9:.2f} GB) "
          f"in {time.perf_counter() - start:.0f} s")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legacy", action="store_true", help="The earlier corpus: 505 cells of en/ja.")
    parser.add_argument("--cells", type=int, default=505, help="(--legacy) cells")
    parser.add_argument("--tasks", type=int, default=None, help="Tasks per cell (paper 300, legacy 1178).")
    parser.add_argument("--keep", type=Path, help="Keep the corpus and the results in this folder.")
    parser.add_argument("--reuse", action="store_true", help="Analyse the corpus --keep kept, if of this shape.")
    parser.add_argument("--blas-threads", type=int, help="OPENBLAS_NUM_THREADS in the analysis' environment (default: "
                                                         "the environment's; the analysis runs BLAS on one thread).")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="jtau-retention-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = corpus(args, folder)
    code, read, read_peak, _, read_cpu = measure([sys.executable, "-c", READ, str(path)])
    print(f"read baseline (read_traces over the same file, nothing analysed): exit {code}, wall {read:.1f} s "
          f"(CPU {read_cpu:.1f} s), peak memory {read_peak:.2f} GiB")
    env = {**os.environ, **({"OPENBLAS_NUM_THREADS": str(args.blas_threads)} if args.blas_threads else {})}
    code, wall, peak, together, cpu = measure([sys.executable, "-m", "jtau", "retention", "analyze", str(path),
                                          "--json", str(folder / "results.json")], env)
    print(f"analyze (OPENBLAS_NUM_THREADS={env.get('OPENBLAS_NUM_THREADS', 'unset')}): exit {code}, wall {wall:.1f} s "
          f"(CPU {cpu:.1f} s, all its processes) = {wall / read:.2f}x the read, peak memory {peak:.2f} GiB "
          f"(all its processes together {together:.2f} GiB)")
    limit_s, limit_gb = (600, 8) if args.legacy else (60, 4)
    print(f"targets: under {limit_s} s -> {'met' if wall < limit_s else 'MISSED'}; under {limit_gb} GB -> "
          f"{'met' if max(peak, together) < limit_gb else 'MISSED'}")
    if not args.legacy and code == 0:
        recovered(folder / "results.json", *planted())
    if not args.keep:
        path.unlink()


if __name__ == "__main__":
    main()
