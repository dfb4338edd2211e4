"""`user_simulator_ja`: tau2's user simulator with its global guidelines in Japanese.

tau2 prepends English guidelines to every simulated user's instructions; with them a model
may answer a Japanese agent in English.  This simulator reads the Japanese guidelines shipped
beside this module (a faithful translation plus one sentence: converse in Japanese); the
control tokens `###STOP###`, `###TRANSFER###` and `###OUT-OF-SCOPE###` stay as tau2 detects them.
"""

from __future__ import annotations

from importlib import resources

from tau2.user.user_simulator import UserSimulator

NAME = "user_simulator_ja"


def guidelines(use_tools: bool) -> str:
    name = "simulation_guidelines_tools.ja.md" if use_tools else "simulation_guidelines.ja.md"
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


class JapaneseUserSimulator(UserSimulator):
    @property
    def global_simulation_guidelines(self) -> str:
        return guidelines(use_tools=self.tools is not None)
