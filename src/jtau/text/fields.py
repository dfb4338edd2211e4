"""Free-text fields of the tasks and the policy: templatize, then render.

Translation (the translation memory, then machine translation) slots in between: it maps a
source template to a target template with the same placeholders.  Until a translation
exists, the source template itself is rendered, so the text stays English while every
entity in it is already Japanese.
"""

from __future__ import annotations

from collections.abc import Callable

from jtau import jsonpath
from jtau.rules import DomainRules
from jtau.swap.localizer import Unmapped
from jtau.swap.structured import TEXT, Problem, tool_calls
from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.text.template import PLACEHOLDER, Template

# source template -> target template (same placeholders); identity until translation exists.
Translate = Callable[[Template, str], str]


def untranslated(template: Template, segment_kind: str) -> str:
    return template.text


class TextLocalizer:
    def __init__(self, recognizer: Recognizer, renderer: Renderer, translate: Translate = untranslated):
        self.recognizer, self.renderer, self.translate = recognizer, renderer, translate
        self.templates: dict[str, Template] = {}
        self.fields = 0

    def localize(self, text: str, segment_kind: str, file: str, path: tuple,
                 problems: list[Problem]) -> str:
        if PLACEHOLDER.search(text):
            problems.append(Problem(file, path, "text", text[:60], "source text already has a {PLACEHOLDER}"))
            return text
        template = self.recognizer.templatize(text)
        self.templates.setdefault(template.text, template)
        self.fields += 1
        try:
            return self.renderer.render(self.translate(template, segment_kind), template)
        except Unmapped as exc:
            problems.append(Problem(file, path, exc.kind, exc.value, exc.reason))
            return text

    def localize_task(self, task: dict, index: int, rules: DomainRules, problems: list[Problem]) -> None:
        for pattern in rules.tasks.text:
            kind = pattern.split(".")[-1] if pattern.split(".")[-1] != "*" else pattern.split(".")[-2]
            for path, container, key in list(jsonpath.find(task, pattern)):
                if isinstance(container[key], str) and container[key]:
                    container[key] = self.localize(container[key], kind, rules.files.tasks,
                                                   (index,) + path, problems)
        for path, action, tool_rules in tool_calls(task, rules):
            for pattern in (p for p, kind in tool_rules.items() if kind == TEXT):
                for arg_path, container, key in list(jsonpath.find(action["arguments"], pattern)):
                    if isinstance(container[key], str) and container[key]:
                        container[key] = self.localize(container[key], f"{action['name']}.{pattern}",
                                                       rules.files.tasks,
                                                       (index,) + path + ("arguments",) + arg_path, problems)
