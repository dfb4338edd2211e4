"""Carry the memory over to re-segmented templates.

When the maps or the rules come to recognize an entity the text held as words ("from Portland,
OR" becomes "from {BANK_WORD_1}", "twenty bucks" becomes "{MONEY_1}"), the old template's entry is
still the right translation once the entity's Japanese is replaced by its placeholder:

    old   "... from Portland, OR."       -> 「…長崎県長崎市在住…」
    new   "... from {BANK_WORD_1}."      -> 「…{BANK_WORD_1}在住…」   (J-tau renders the same text)

`carry(segments, memory, recognizer, renderer, locale, glossary, kept)` finds, for every template the
memory lacks, the entry whose source the current recognizer turns into that template, and
rewrites its target: old placeholders renamed as the new template numbers them, each new
entity's Japanese (as J-tau renders it) replaced by its placeholder.  The entry keeps its status
and engine: J-tau's text is unchanged, only the other arms now render the entity in their locale.
Where the target does not hold the entity's Japanese exactly as often as the template holds the
entity, nothing is guessed: the pair is listed for a person to edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jtau.glossary import Glossary
from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.text.template import PLACEHOLDER, Entity, Template
from jtau.translate.engine import needs_translation
from jtau.translate.tm import Entry, TranslationMemory

# a placeholder of the old template while the recognizer reads the words around it: a character
# no pattern starts with (Unicode's private use area), one per placeholder
SENTINEL = 0xE000


@dataclass
class Unresolved:
    old: Entry
    template: str
    why: str

    def __str__(self) -> str:
        return f"{self.old.where or self.old.key}: {self.old.key} -> {self.template!r}: {self.why}"


@dataclass
class Carried:
    entries: list[Entry] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    missing: int = 0  # templates the memory lacks, carried or not


def resegment(source: str, recognizer: Recognizer) -> tuple[Template, dict[str, str]]:
    """`source` (an old template) as the recognizer reads it now, and old name -> new name."""
    old_names = PLACEHOLDER.findall(source)
    marked = PLACEHOLDER.sub(lambda m: chr(SENTINEL + old_names.index(m[1])), source)
    found = recognizer.templatize(marked)
    entities = dict(found.entities)
    counts: dict[str, int] = {}
    old_renamed: dict[str, str] = {}
    new_entities: list[tuple[str, Entity]] = []

    def name(kind: str) -> str:
        counts[kind] = counts.get(kind, 0) + 1
        return f"{kind}_{counts[kind]}"

    def rename(match: re.Match) -> str:
        if match[1]:  # a new entity
            new = name(entities[match[1]].kind)
            new_entities.append((new, entities[match[1]]))
        else:
            old = old_names[ord(match[2]) - SENTINEL]
            old_renamed[old] = new = name(old.rsplit("_", 1)[0])
        return "{" + new + "}"

    sentinels = f"[{chr(SENTINEL)}-{chr(SENTINEL + max(len(old_names), 1) - 1)}]"
    text = re.sub(rf"\{{([A-Z]+(?:_[A-Z]+)*_\d+)\}}|({sentinels})", rename, found.text)
    return Template(text, tuple(new_entities)), old_renamed


def carry_target(old: Entry, new: Template, old_renamed: dict[str, str], renderer: Renderer) -> str:
    """The old target with the new template's placeholders; ValueError says why it cannot be."""
    parts = PLACEHOLDER.split(old.target)  # text, name, text, name, ... text
    for index in range(1, len(parts), 2):
        if parts[index] not in old_renamed:
            raise ValueError(f"the target's {{{parts[index]}}} is not in its source")
        parts[index] = "{" + old_renamed[parts[index]] + "}"
    wanted: dict[str, list[str]] = {}
    for name, entity in new.entities:
        wanted.setdefault(renderer.entity(entity), []).append(name)
    texts = parts[0::2]
    for japanese, names in sorted(wanted.items(), key=lambda item: -len(item[0])):  # longest first
        held = sum(text.count(japanese) for text in texts)
        if held != len(names):
            raise ValueError(f"the target holds {japanese!r} {held} times, the source the entity {len(names)}")
        queue = iter(names)
        texts = [re.sub(re.escape(japanese), lambda m, queue=queue: "{" + next(queue) + "}", text) for text in texts]
    parts[0::2] = texts
    return "".join(parts)


def carry(segments: list[tuple[Template, str]], memory: TranslationMemory, recognizer: Recognizer,
          renderer: Renderer, locale: str, glossary: Glossary, kept: frozenset[str] = frozenset()) -> Carried:
    """Entries for the templates `memory` lacks, carried from the entries they re-segment (`kept`:
    the kinds the rules keep in the source language, never in the memory)."""
    result = Carried()
    lacking: dict[tuple[str, str], Template] = {}
    for template, kind in segments:
        if kind not in kept and needs_translation(template) and template.key(locale, kind) not in memory.entries:
            lacking.setdefault((kind, template.text), template)
    result.missing = len(lacking)
    if not lacking:
        return result
    done: set[tuple[str, str]] = set()
    for old in sorted(memory.entries.values(), key=lambda e: (e.kind, e.source, e.key)):
        new, old_renamed = resegment(old.source, recognizer)
        wanted = (old.kind, new.text)
        if new.text == old.source or wanted not in lacking or wanted in done:
            continue
        try:
            target = carry_target(old, new, old_renamed, renderer)
        except ValueError as exc:
            result.unresolved.append(Unresolved(old, new.text, str(exc)))
            continue
        done.add(wanted)
        status = (old.stale_from or "draft") if old.status == "stale" else old.status
        result.entries.append(Entry(key=lacking[wanted].key(locale, old.kind), kind=old.kind, source=new.text,
                                    target=target, status=status,
                                    engine=old.engine, model=old.model, prompt=old.prompt,
                                    hints=glossary.hints_in(new.text)))
    result.unresolved = [u for u in result.unresolved if (u.old.kind, u.template) not in done]
    return result
