"""Free-text fields of the tasks and the policy, in two passes.

`collect` splits each field into segments (Markdown-aware, see segment.py) and each segment
into a template with placeholders; the translator then gets every template at once (so it
can batch and deduplicate); `render` puts each field back together from the translated
templates filled with the localized entities.  A segment without a translation keeps its
source template, so the text stays English while its entities are already Japanese.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jtau.errors import InputError
from jtau.rules import DomainRules
from jtau.swap.localizer import Unmapped
from jtau.swap.structured import TEXT, Problem, tool_calls
from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.text.segment import segment
from jtau.text.template import PLACEHOLDER, Template
from jtau.util import jsonpath
from jtau.util.limits import MAX_SEGMENT_CHARS
from jtau.util.listing import clip


@dataclass
class Field:
    """One free-text value: where it is, and its pieces (literal text or a template)."""
    container: dict | list
    key: Any
    file: str
    path: tuple
    kind: str
    pieces: list  # str (kept verbatim) or Template (translated)
    line: int = 0  # line of the text's start in its file (policies, diagram labels); 0: a JSON value
    task: str = ""  # the id of the task that holds it

    def location(self, index: int) -> str:
        """Where piece `index` occurs, as a person finds it: `policy.md:42`,
        `tasks.json task 7 user_scenario.instructions.reason_for_call`."""
        if self.line:
            breaks = sum(piece.count("\n") for piece in self.pieces[:index] if isinstance(piece, str))
            return f"{self.file}:{self.line + breaks}"
        if self.task:
            return f"{self.file} task {self.task} {jsonpath.format_path(self.path[1:])}"
        return f"{self.file} {jsonpath.format_path(self.path)}"


class TextFields:
    def __init__(self, recognizer: Recognizer, renderer: Renderer):
        self.recognizer, self.renderer = recognizer, renderer
        self.fields: list[Field] = []
        self._pieces: dict[tuple[str, frozenset[str]], list] = {}

    # --- pass 1 ------------------------------------------------------------------------------

    def add(self, container, key, kind: str, file: str, path: tuple, problems: list[Problem],
            line: int = 0, task: str = "") -> None:
        text = container[key]
        if not isinstance(text, str) or not text:
            return
        if PLACEHOLDER.search(text):
            problems.append(Problem(file, path, "text", clip(text, 60), "source text already has a {PLACEHOLDER}"))
            return
        figures = self.recognizer.figures_in(file)
        pieces = self._pieces.get((text, figures))
        if pieces is None:  # the same text recurs (telecom: 2,285 tasks from 15 scenarios)
            lines = text.split("\n")
            if (longest := max(lines, key=len)) and len(longest) > MAX_SEGMENT_CHARS:  # a segment is a line
                index = lines.index(longest)
                where = Field(container, key, file, path, kind, ["\n" * index], line, task).location(1)
                raise InputError(f"{where}: a line of {len(longest):,} characters; jtau translates lines of at "
                                 f"most {MAX_SEGMENT_CHARS:,}")
            pieces = self._pieces[(text, figures)] = [self.recognizer.templatize(p.text, figures) if p.translate
                                                      else p.text for p in segment(text)]
        self.fields.append(Field(container, key, file, path, kind, list(pieces), line, task))

    def add_task(self, task: dict, index: int, rules: DomainRules, problems: list[Problem]) -> None:
        file, task_id = rules.files.tasks, str(task.get("id", index))
        for pattern, kind in rules.tasks.text.items():
            for path, container, key in list(jsonpath.find(task, pattern)):
                self.add(container, key, kind, file, (index,) + path, problems, task=task_id)
        for path, action, tool_rules in tool_calls(task, rules):
            for pattern, kind in tool_rules.items():
                if kind != TEXT:
                    continue
                for arg_path, container, key in list(jsonpath.find(action["arguments"], pattern)):
                    self.add(container, key, rules.tasks.tool_text_kind, file,
                             (index,) + path + ("arguments",) + arg_path, problems, task=task_id)

    def segments(self) -> list[tuple[Template, str]]:
        return [(p, f.kind) for f in self.fields for p in f.pieces if isinstance(p, Template)]

    # --- pass 2 ------------------------------------------------------------------------------

    def render(self, target: Callable[[Template, str], str], problems: list[Problem]) -> None:
        done: dict[tuple[str, str], str] = {}
        for f in self.fields:
            source = f.container[f.key]
            if (source, f.kind) in done:
                f.container[f.key] = done[(source, f.kind)]
                continue
            try:
                f.container[f.key] = done[(source, f.kind)] = "".join(
                    self.renderer.render(target(p, f.kind), p) if isinstance(p, Template) else p
                    for p in f.pieces)
            except Unmapped as exc:
                problems.append(Problem(f.file, f.path, exc.kind, exc.value, exc.reason))
