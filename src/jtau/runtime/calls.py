"""What the models of a simulation were shown, and what its judge cost: tau2 records neither.

`watch()` wraps tau2's `generate` where the agent (`tau2.agent.llm_agent`), the customer
(`tau2.user.user_simulator`) and tau2-bench 1.0.1's NL-assertion judge call it.  Between `start()`
and `finish()` a thread's calls go to its account: the SHA-256 of each distinct system prompt per
role (the rendered prompt: policy, tools' instructions, the customer's scenario and directive, the
judge's instructions), the prompts' texts, and the judge's cost and tokens.  The experiment records
the hashes in each simulation file and keeps each prompt once (experiment/runner.py), so two runs
can be told to have shown the same prompts or not.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from dataclasses import dataclass, field

ROLES = {"tau2.agent.llm_agent": "agent", "tau2.user.user_simulator": "customer",
         "tau2.evaluator.evaluator_nl_assertions": "judge"}
_THREAD = threading.local()


@dataclass
class Account:
    prompts: dict[str, list[str]] = field(default_factory=dict)  # role -> SHA-256 of each distinct system prompt
    texts: dict[str, str] = field(default_factory=dict)          # SHA-256 -> the prompt
    judge: dict[str, float] = field(default_factory=dict)        # the judge's cost and tokens (retention/usage.py)

    def shown(self, role: str, prompt: str) -> None:
        digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        seen = self.prompts.setdefault(role, [])
        if digest not in seen:
            seen.append(digest)
            self.texts[digest] = prompt

    def charge(self, message) -> None:
        cost = getattr(message, "cost", None)
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.judge["judge_cost"] = self.judge.get("judge_cost", 0.0) + cost
        tokens = getattr(message, "usage", None) or {}
        for kind in ("prompt", "completion"):
            if isinstance(tokens.get(f"{kind}_tokens"), int):
                key = f"judge_{kind}_tokens"
                self.judge[key] = self.judge.get(key, 0) + tokens[f"{kind}_tokens"]


def system_prompt(args: tuple, kwargs: dict) -> str | None:
    """The system message's text of a `generate(model, messages, ...)` call."""
    messages = kwargs.get("messages", args[1] if len(args) > 1 else None) or []
    for message in messages:
        if getattr(message, "role", None) == "system" and isinstance(getattr(message, "content", None), str):
            return message.content
    return None


def watch() -> None:
    """Wrap `generate` in the modules of ROLES that this tau2 has (once)."""
    for name, role in ROLES.items():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        original = getattr(module, "generate", None)
        if original is None or getattr(original, "jtau_watched", False):
            continue

        def generate(*args, __original=original, __role=role, **kwargs):
            account = getattr(_THREAD, "account", None)
            if account is not None and (prompt := system_prompt(args, kwargs)) is not None:
                account.shown(__role, prompt)
            message = __original(*args, **kwargs)
            if account is not None and __role == "judge":
                account.charge(message)
            return message

        generate.jtau_watched = True  # type: ignore[attr-defined]  # a marker attribute on a function
        module.generate = generate  # type: ignore[attr-defined]  # replaces tau2's module attribute


def start() -> None:
    """Open this thread's account (one simulation)."""
    _THREAD.account = Account()


def finish() -> Account:
    """Close this thread's account and return it."""
    account, _THREAD.account = getattr(_THREAD, "account", None), None
    return account or Account()
