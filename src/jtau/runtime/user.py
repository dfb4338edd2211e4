"""`user_simulator_ja`: tau2's user simulator with its global guidelines in Japanese.

tau2 prepends English guidelines to every simulated user's instructions; with them a model
may answer a Japanese agent in English.  This simulator reads the Japanese guidelines shipped
beside this module (a faithful translation plus one sentence: converse in Japanese), with the
scenario's labels in Japanese too (Reason for call -> 問い合わせの理由); the control tokens `###STOP###`, `###TRANSFER###` and `###OUT-OF-SCOPE###` stay as tau2 detects them.
"""

from __future__ import annotations

import re
from importlib import resources

from tau2.user.user_simulator import UserSimulator

NAME = "user_simulator_ja"

# tau2 writes a task's user scenario with English labels (UserScenario.__str__); a Japanese
# simulator reads Japanese ones.  Only labels at the start of a line are replaced.
LABELS = {"Persona:": "ペルソナ：", "Instructions:": "指示：", "Domain:": "ドメイン：",
          "Reason for call:": "問い合わせの理由：", "Known info:": "分かっていること：",
          "Unknown info:": "分からないこと：", "Task instructions:": "タスクの指示："}
LABEL_LINE = re.compile(r"^(\s*)(" + "|".join(map(re.escape, LABELS)) + r")", re.M)


def japanese_labels(instructions: str) -> str:
    return LABEL_LINE.sub(lambda m: m[1] + LABELS[m[2]], instructions)


def guidelines(use_tools: bool) -> str:
    name = "simulation_guidelines_tools.ja.md" if use_tools else "simulation_guidelines.ja.md"
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


class JapaneseUserSimulator(UserSimulator):
    """Takes whatever tau2 passes its own simulator (26.3: tools, instructions, llm, llm_args;
    1.0.1 also `persona_config`) and hands it on unchanged, but for the Japanese labels."""

    def __init__(self, *args, instructions=None, **kwargs):
        if isinstance(instructions, str):
            instructions = japanese_labels(instructions)
        super().__init__(*args, instructions=instructions, **kwargs)

    @property
    def global_simulation_guidelines(self) -> str:
        return guidelines(use_tools=self.tools is not None)
