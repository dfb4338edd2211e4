"""Benchmark: `jtau retention analyze` at the paper's scale on this machine.

Default (`--paper`): a paper-shaped corpus -- 8 models x 6 benchmarks x 2 temperatures, 41
languages (en and 40 targets), 300 tasks x 2 replicates: 2.36M rollouts, a five-tool alphabet,
~6 actions a rollout, 2% parse failures -- with a planted language effect of known size: in
target language k, a rollout starts with a `translate` call with probability p_k, and its
other actions drift with a rate that grows with k.  The analysis must recover p_k (its
Translate-like rollout share) and the ordering of the languages (rank correlation of their
mean corrected gap with the planted drift).  Prints time, peak memory, the targets (5 minutes,
4 GB) and planted vs recovered.

`--legacy` keeps the earlier corpus (505 cells of one language pair, 1,178 tasks each).

    python scripts/bench_retention.py [--legacy] [--tasks N] [--keep DIR]
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


def generate_paper(path: Path, tasks: int, seed: int = 0) -> tuple[int, dict, dict]:
    """The paper-shaped corpus; returns the rollout count, planted p_k and planted drift per language."""
    rng = random.Random(seed)
    targets = [f"l{k:02d}" for k in range(40)]
    planted_p = {lang: round(0.01 + 0.3 * k / 39, 4) for k, lang in enumerate(targets)}
    planted_drift = {lang: 0.02 + 0.10 * k / 39 for k, lang in enumerate(targets)}
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
                            drift = 0.01 + temperature * 0.02 + (skill + planted_drift[language] if language != "en" else 0)
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
    return count, planted_p, planted_drift


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legacy", action="store_true", help="The earlier corpus: 505 cells of en/ja.")
    parser.add_argument("--cells", type=int, default=505, help="(--legacy) cells")
    parser.add_argument("--tasks", type=int, default=None, help="Tasks per cell (paper 300, legacy 1178).")
    parser.add_argument("--keep", type=Path, help="Keep the corpus and the results in this folder.")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="jtau-retention-"))
    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / "traces.jsonl"
    start = time.perf_counter()
    if args.legacy:
        rollouts = generate(corpus, args.cells, args.tasks or 1178)
        shape = f"{args.cells} cells"
    else:
        rollouts, planted_p, planted_drift = generate_paper(corpus, args.tasks or 300)
        shape = "8 models x 6 benchmarks x 2 temperatures x 41 languages"
    print(f"generated {rollouts:,} rollouts ({shape}, {corpus.stat().st_size / 1e9:.2f} GB) "
          f"in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "jtau", "retention", "analyze", str(corpus),
                           "--json", str(folder / "results.json")], stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 ** 2  # KiB -> GiB
    print(f"analyze: exit {done.returncode}, wall {wall:.0f} s ({wall / 60:.1f} min), peak memory {peak:.2f} GiB")
    limit_min, limit_gb = (10, 8) if args.legacy else (5, 4)
    print(f"targets: under {limit_min} min -> {'met' if wall < limit_min * 60 else 'MISSED'}; under {limit_gb} GB -> "
          f"{'met' if peak < limit_gb else 'MISSED'}")
    if not args.legacy and done.returncode == 0:
        recovered(folder / "results.json", planted_p, planted_drift)
    if not args.keep:
        corpus.unlink()


if __name__ == "__main__":
    main()
