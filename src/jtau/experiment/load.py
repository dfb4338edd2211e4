"""An experiment folder read back: its manifest and every simulation as a retention trace."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from jtau.arms import split_domain
from jtau.domains import source_of
from jtau.errors import InputError
from jtau.experiment.runner import read_manifest
from jtau.retention import usage
from jtau.retention.diagnostics import judge_diagnostics
from jtau.retention.importers import RunInfo, simulation_trace
from jtau.retention.traces import Trace
from jtau.runtime.domains import runtime_domain


def temperature_of(plan: dict, where: str) -> float:
    value = (plan.get("agent_llm_args") or {}).get("temperature")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: plan.agent_llm_args.temperature: the agent's temperature is not recorded")
    return float(value)


def takes_retrieval(domain: str) -> bool:
    """Whether a domain's runs depend on the retrieval configuration (banking_knowledge)."""
    found = source_of(domain)
    return bool(found and runtime_domain(found[0]).retrieval)


def experiment_traces(*folders: Path) -> tuple[dict, list[Trace]]:
    """(manifest, traces) of an experiment folder, in a stable order; of several (one a shard, or
    one experiment written in parts), as one experiment: folders of different plans, datasets or
    tau2, or one simulation in two folders, are refused naming them."""
    manifest, traces = _one(folders[0])
    seen = {Path(t.origin).relative_to(folders[0]): t.origin for t in traces}
    if len(folders) == 1:
        return manifest, traces
    for folder in folders[1:]:
        other, more = _one(folder)
        for key in ("plan", "datasets", "runtime"):
            if other.get(key) != manifest.get(key):
                raise InputError(f"{folder} and {folders[0]} are not one experiment: their {key} differ; report them "
                                 "apart")
        for trace in more:
            name = Path(trace.origin).relative_to(folder)
            if name in seen:
                raise InputError(f"{trace.origin}: the same simulation as {seen[name]}: two folders ran it (a shard "
                                 "run twice?); keep one")
            seen[name] = trace.origin
        traces += more
    # in the order one folder would hold them: the numbers do not depend on how it was split
    where = {origin: name for name, origin in seen.items()}
    return manifest, sorted(traces, key=lambda t: where[t.origin])


def _one(folder: Path) -> tuple[dict, list[Trace]]:
    """(manifest, traces) of one experiment folder, in a stable order."""
    manifest = read_manifest(folder)
    plan = manifest["plan"]
    temperature = temperature_of(plan, str(folder / "experiment.json"))
    traces = []
    for path in sorted((folder / "simulations").glob("*/*/*.json")):
        try:
            record = orjson.loads(path.read_bytes())
            meta, simulation = record["jtau"], record["simulation"]
            domain, user = str(meta["domain"]), str(meta["user"])
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}: not a simulation of a jtau experiment ({type(exc).__name__}: {exc})") from None
        base, arm = split_domain(domain)
        info = RunInfo(plan["agent_llm"], base, arm.name if arm else "en", temperature, user,
                       plan.get("retrieval_config") if takes_retrieval(domain) else None, manifest.get("runtime"),
                       manifest.get("id"), manifest.get("jtau"), (manifest.get("datasets") or {}).get(domain))
        trace = simulation_trace(simulation, info, int(meta.get("trial") or 0), str(path))
        if meta.get("judge_usage"):  # the NL-assertion judge's cost and tokens, recorded by jtau
            trace.usage = usage.of_simulation(simulation, meta["judge_usage"])
        if isinstance(meta.get("prompts"), dict):  # the system prompts it ran with, one digest
            trace.prompts = hashlib.sha256(orjson.dumps(meta["prompts"], option=orjson.OPT_SORT_KEYS)).hexdigest()
        if trace.parsed:
            assert trace.diagnostics is not None  # simulation_trace gives every parsed trace its diagnostics
            trace.diagnostics.update(judge_diagnostics(simulation.get("reward_info"), meta.get("nl_assertions")))
        traces.append(trace)
    return manifest, traces
