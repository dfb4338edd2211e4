"""What an experiment runs: its plan, the seeds of its trials, and its simulations.

The plan is the experiment's identity: a folder holds one plan, and running it again continues
it (the simulations already written are not run again).  Keys never enter a plan: llm args
that hold one are refused, and a key is named by the environment variable that holds it
(`--agent-key-env`), read when a call is made and written nowhere.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jtau.arms import ARMS, arm, arm_domain
from jtau.util.secrets import secret_keys

TAU2_USER = "user_simulator"
USERS = {"ja": "user_simulator_ja", "ja-en-prompt": "user_simulator_ja-en-prompt"}


class Plan(BaseModel):
    """An experiment's identity (everything but how fast it runs)."""
    model_config = ConfigDict(extra="forbid")
    domains: list[str]                       # tau2 domain names without an arm (airline, telecom-workflow)
    arms: list[str] = Field(default_factory=lambda: ["en", "ja"])
    users: list[str] = Field(default_factory=lambda: [USERS["ja"]])  # the customers of Japanese-text arms
    agent: str = "llm_agent"
    agent_llm: str
    agent_llm_args: dict = Field(default_factory=dict)
    user_llm: str
    user_llm_args: dict = Field(default_factory=dict)
    judge_llm: str | None = None             # tau2-bench 1.0.1's NL-assertion judge (None: tau2's default)
    judge_llm_args: dict | None = None
    agent_key_env: str | None = None         # the variables holding keys (their names, never their values)
    user_key_env: str | None = None
    judge_key_env: str | None = None
    trials: int = Field(default=2, ge=1)
    seed: int = 300
    # the tasks: ids run in every domain that has them, or per domain ({"airline": ["1"], ...})
    task_ids: list[str] | dict[str, list[str]] | None = None
    num_tasks: int | None = Field(default=None, ge=1)
    max_steps: int = Field(default=200, ge=1)
    max_errors: int = Field(default=10, ge=1)
    retrieval_config: str | None = None      # banking_knowledge's retrieval configuration
    runtime: str = ""                        # the tau2 that runs it ("tau2-bench 1.0.1")

    @field_validator("arms")
    @classmethod
    def _arms(cls, value: list[str]) -> list[str]:
        for name in value:
            arm(name)  # a ValueError naming the arms
        return list(dict.fromkeys(value))

    @field_validator("agent_llm_args", "user_llm_args", "judge_llm_args")
    @classmethod
    def _no_secrets(cls, value):
        if value and (found := secret_keys(value)):
            raise ValueError(f"holds {found[0]!r}: keys are not written anywhere; put the key in an environment "
                             "variable and name it with --agent-key-env / --user-key-env / --judge-key-env")
        return value

    def seeds(self) -> list[int]:
        """The seed of each trial, as tau2 derives them from its --seed (the same per trial on
        every side, so that a trial's English and Japanese runs are paired alike)."""
        rng = random.Random(self.seed)
        return [rng.randint(0, 1000000) for _ in range(self.trials)]

    def users_of(self, arm: str) -> list[str]:
        """tau2's own simulator speaks English; a Japanese-text arm has the plan's customers."""
        return list(self.users) if ARMS[arm].japanese_text else [TAU2_USER]

    def units(self) -> list[tuple[str, str, str]]:
        """(tau2 domain, arm, user simulator) of every side the plan runs."""
        return [(arm_domain(domain, arm), arm, user) for domain in self.domains for arm in self.arms
                for user in self.users_of(arm)]

    def identity(self) -> dict:
        return self.model_dump(mode="json")


@dataclass(frozen=True)
class Simulation:
    """One simulation of an experiment: a side, a task, a trial."""
    domain: str      # the tau2 domain (airline_ja)
    arm: str
    user: str
    task_id: str
    trial: int
    seed: int
    nl_assertions: int | None = None  # how many NL assertions grade the task (1.0.1), for the judge guard

    @property
    def file(self) -> str:
        """Its file in the experiment folder (task ids may hold any character: hashed)."""
        digest = hashlib.sha256(self.task_id.encode()).hexdigest()[:16]
        return f"simulations/{self.domain}/{self.user}/{digest}.{self.trial}.json"
