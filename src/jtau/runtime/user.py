"""J-tau's simulated customers, two ways of making tau2's user simulator speak Japanese.

- `user_simulator_ja`: tau2's user simulator with its global guidelines in Japanese.  tau2
  prepends English guidelines to every simulated user's instructions; with them a model may answer
  a Japanese agent in English.  This simulator reads the Japanese guidelines shipped beside this
  module (a faithful translation plus one sentence: converse in Japanese), with the scenario's
  labels in Japanese too (Reason for call -> 問い合わせの理由), and the task's Japanese instructions.
- `user_simulator_ja-en-prompt`: tau2's English guidelines and the task's English
  instructions rendered with the domain's entities (the scenario of the arm with English text and
  the same entities, jtau.arms.english_twin: for `_ja` the `_ja-entities` task, for `_ja-text` the
  `_en` task), plus `EN_PROMPT_DIRECTIVE` (versioned, `EN_PROMPT_VERSION`): every word said to the
  agent is Japanese.  This is upstream's design (sierra-research/tau2-bench,
  `src/tau2/multilingual/english_prompts.py`, τ-Multilingual): translated simulator prompts
  measurably degrade instruction following (a first-turn `###STOP###` in 15 of 16 languages, in
  none in English), so the simulator reads English and speaks the target language.  tau2 hands a
  simulator only `str(task.user_scenario)`: the twin is found by that string among the registered
  arms' tasks (runtime/registration.py), and a string of no J-tau arm is refused in one line.

In both, the control tokens `###STOP###`, `###TRANSFER###` and `###OUT-OF-SCOPE###` stay as tau2
detects them.
"""

from __future__ import annotations

import re
import threading
from importlib import resources

from tau2.user.user_simulator import UserSimulator

from jtau.arms import EN_PROMPT_VERSION, arm_domain, english_twin, split_domain
from jtau.errors import InputError

NAME = "user_simulator_ja"
EN_PROMPT = "user_simulator_ja-en-prompt"
# appended to tau2's English guidelines; a scripted customer finds it by its first line.
# Version 2: only ids, codes, emails and phones verbatim; dates and amounts keep their values in
# Japanese writing (version 1's "exactly as the scenario gives them" invited "May 20に"); a
# persona's own language habits kept.
EN_PROMPT_DIRECTIVE = f"""## Language (J-tau English-prompt directive, version {EN_PROMPT_VERSION})
The customer service representative works in Japanese, and you are a Japanese-speaking customer.
Everything you say to the agent must be in natural, polite Japanese: every word of every message,
from the first one to the last. The guidelines and the scenario above are written in English only
for you; never answer in English and never mix languages, even if the agent writes in English.
Give ids, codes, email addresses and phone numbers exactly as the scenario gives them, and names as
it writes them. Give dates and amounts with the same values, written as a Japanese speaker writes
them: "May 20" is 5月20日, "$348" is 348ドル, "¥34,800" is 34,800円. If the scenario gives you
habits of speech of your own (a language you speak imperfectly, words of another language, a way
of writing), keep them within your Japanese. The control tokens ###STOP###, ###TRANSFER### and
###OUT-OF-SCOPE### are not words: when the guidelines ask for one, write it exactly as written,
untranslated."""

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


class EnglishPromptedUserSimulator(UserSimulator):
    """tau2's simulator with its English guidelines, the task's English twin's instructions and
    the Japanese-speaking directive (`user_simulator_ja-en-prompt`); takes what tau2 passes its own."""

    def __init__(self, *args, instructions=None, **kwargs):
        if isinstance(instructions, str):
            instructions = english_instructions(instructions)
        super().__init__(*args, instructions=instructions, **kwargs)

    @property
    def global_simulation_guidelines(self) -> str:
        return f"{super().global_simulation_guidelines.rstrip()}\n\n{EN_PROMPT_DIRECTIVE}"


_INDEX: dict[str, dict[str, tuple[str, str]]] = {}  # arm domain -> str(user_scenario) -> (task id, domain)
_INDEX_LOCK = threading.Lock()


def scenario_text(task: dict) -> str:
    """`str(task.user_scenario)`: what tau2 hands a user simulator as its instructions."""
    from tau2.data_model.tasks import UserScenario

    return str(UserScenario.model_validate(task["user_scenario"]))


def _scenarios(name: str) -> dict[str, tuple[str, str]]:
    from jtau.runtime.registration import tasks_of

    with _INDEX_LOCK:
        if name not in _INDEX:
            _INDEX[name] = {scenario_text(t): (str(t["id"]), name) for t in tasks_of(name)}
        return _INDEX[name]


def english_instructions(instructions: str) -> str:
    """The instructions of the task whose instructions are `instructions`, as its English twin
    (the arm with English text and the same entities) states them; English instructions of an
    arm are its own.  Tasks of the arms tau2 has loaded are searched first, then every arm's."""
    from jtau.runtime.registration import arm_of, loaded_arms, registered_arms, tasks_of

    for names in (loaded_arms(), registered_arms()):
        for name in names:
            found = _scenarios(name).get(instructions)
            if found is None:
                continue
            task_id, _ = found
            base, arm = split_domain(name)
            assert arm is not None  # a registered arm's name ends in its arm
            if not arm.japanese_text:
                return instructions
            twin = arm_domain(base, english_twin(arm).name)
            if arm_of(twin) is None:
                raise InputError(f"{EN_PROMPT}: {twin}, the English twin of {name}, is not registered")
            [task] = [t for t in tasks_of(twin) if str(t["id"]) == task_id]
            return scenario_text(task)
    raise InputError(f"{EN_PROMPT}: the task's instructions are none of a J-tau arm's "
                     f"(run it on a J-tau domain, such as airline_ja): {instructions[:80]!r}")


def register_users(registry) -> None:
    """Both simulated customers in tau2's registry."""
    for name, simulator in ((NAME, JapaneseUserSimulator), (EN_PROMPT, EnglishPromptedUserSimulator)):
        if name not in registry.get_users():
            registry.register_user(simulator, name)
