"""Benchmark: `jtau localize DOMAIN` against merely loading and writing the same files.

Both are measured in this one run, on this machine, so the ratio is comparable across
machines.  Each side runs REPEAT times; the best time counts (least disturbed by noise).

    python scripts/bench_localize.py [DOMAIN] [--repeat N]
    python scripts/bench_localize.py --whole [--repeat N]   # `jtau localize all --offline --check`,
                                                            # whole process, paired with a stdlib
                                                            # load+dump process; median ratio
"""

from __future__ import annotations

import argparse
import json
import tempfile
import tomllib
import time
from pathlib import Path

import tomli_w

from jtau.pipeline import finish, localize
from jtau.project import project_root
from jtau.rules import load_rules
from jtau.source import load_domain


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


PLAIN = """
import json, sys, tempfile, tomllib, tomli_w
from pathlib import Path
with tempfile.TemporaryDirectory() as out:
    for name in sys.argv[1:]:
        path, target = Path(name), Path(out) / Path(name).name
        if path.suffix == ".json":
            target.write_text(json.dumps(json.loads(path.read_bytes()), ensure_ascii=False, indent=4) + "\\n")
        elif path.suffix == ".toml":
            target.write_text(tomli_w.dumps(tomllib.loads(path.read_text())))
        else:
            target.write_text(path.read_text())
"""


def whole(repeat: int) -> None:
    """Paired whole-process runs: jtau (imports, all three domains, --check) against a Python
    process that loads and dumps the same source files with the standard library."""
    import statistics
    import subprocess
    import sys

    names = []
    for domain in ("airline", "retail", "telecom"):
        rules = load_rules(domain)
        folder = load_domain(rules).path
        files = rules.files
        names += [str(folder / n) for n in [*files.db_files, files.tasks, *files.policy_files, *files.copy_,
                                            *files.task_subsets, *files.graphs] if (folder / n).is_file()]
    ratios, times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", PLAIN, *names], check=True)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "jtau", "localize", "all", "--offline", "--check"], check=True,
                       stdout=subprocess.DEVNULL)
        full = time.perf_counter() - start
        ratios.append(full / plain)
        times.append((plain, full))
    print("pairs (plain s, jtau s): " + ", ".join(f"({p:.2f}, {f:.2f})" for p, f in times))
    print(f"median ratio jtau localize all --offline --check / stdlib load+dump: {statistics.median(ratios):.1f}x "
          f"(target 4x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain", nargs="?", default="airline")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whole", action="store_true", help="Whole-process paired runs over all domains.")
    args = parser.parse_args()
    if args.whole:
        whole(args.repeat)
        return
    root = project_root()
    rules = load_rules(args.domain)
    folder = load_domain(rules).path
    files = rules.files
    names = [*files.db_files, files.tasks, *files.policy_files, *files.copy_, *files.task_subsets]

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)

        def baseline() -> None:
            for name in names:
                path = folder / name
                (out / "plain" / name).parent.mkdir(parents=True, exist_ok=True)
                if name.endswith(".json"):
                    data = json.loads(path.read_bytes())
                    (out / "plain" / name).write_text(json.dumps(data, ensure_ascii=False, indent=4) + "\n")
                elif name.endswith(".toml"):
                    (out / "plain" / name).write_text(tomli_w.dumps(tomllib.loads(path.read_text())))
                else:
                    (out / "plain" / name).parent.mkdir(parents=True, exist_ok=True)
                    (out / "plain" / name).write_text(path.read_text())

        stages: dict[str, float] = {}

        def jtau() -> None:
            result = localize(args.domain, root)
            finish(result, out / "jtau" / args.domain, check=False)
            stages.update(result.timings)

        plain = best(baseline, args.repeat)
        full = best(jtau, args.repeat)

    print(f"domain: {args.domain} ({sum((folder / n).stat().st_size for n in names) / 1e6:.1f} MB of source)")
    print(f"load + write with json:  {plain:.3f} s")
    print(f"jtau localize:           {full:.3f} s")
    print("  stages (last run):     " + ", ".join(f"{k} {v:.3f}" for k, v in stages.items()))
    print(f"ratio localize / plain:  {full / plain:.1f}x")


if __name__ == "__main__":
    main()
