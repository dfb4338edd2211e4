"""Which target template each source template gets: the memory's entry, or a new
translation from the endpoint, or -- without an endpoint -- the source itself.

A segment is a hit when the memory has its key and, unless the entry is reviewed, the entry
was made with the glossary hints that apply now.  Misses are sent once each (identical
templates share one key), in batches; with `offline` they are an error instead.  A kind
the rules keep in the source language (`source_language`) is never looked up nor sent: its
target is its source template, so its entities are still localized.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jtau.errors import CheckFailed, InputError
from jtau.glossary import Glossary
from jtau.text.template import PLACEHOLDER, Template
from jtau.translate import check
from jtau.translate.client import Job, MTClient, batches
from jtau.translate.tm import TranslationMemory
from jtau.util.listing import clip, counted, first


@dataclass
class Stats:
    segments: int = 0
    unique: int = 0
    no_text: int = 0
    hits: int = 0
    sent: int = 0
    requests: int = 0
    untranslated: int = 0
    pending_chars: int = 0
    pending_requests: int = 0
    kept: int = 0  # templates of a kind the rules keep in the source language (entities localized)
    warnings: list[str] = field(default_factory=list)


# A colon after a placeholder that ends a label ("Travel insurance: " -> 旅行保険: ) is written
# full-width in Japanese, as the translated labels are (手荷物と保険の変更：).
LABEL_COLON = re.compile(r"(?<=\}):(?=\s|$)")


def needs_translation(template: Template) -> bool:
    """A template of placeholders, digits and punctuation only is rendered as it is."""
    return any(c.isalpha() for c in PLACEHOLDER.sub("", template.text))


class Translator:
    def __init__(self, tm: TranslationMemory, glossary: Glossary, locale: str,
                 client: MTClient | None = None, offline: bool = False, dry_run: bool = False,
                 batch_size: int = 8, literals: frozenset[str] = frozenset(),
                 source_language: frozenset[str] = frozenset()):
        self.tm, self.glossary, self.locale, self.batch_size = tm, glossary, locale, batch_size
        self.literals, self.source_language = literals, source_language
        self.client, self.offline, self.dry_run = client, offline, dry_run
        self.targets: dict[str, str] = {}
        self.pending: list[Job] = []   # the misses of the last fill, translated or not
        self.stats = Stats()

    def key(self, template: Template, kind: str) -> str:
        return template.key(self.locale, kind)

    def fill(self, segments: list[tuple[Template, str]], progress=None) -> Stats:
        """Make sure every (template, kind) has a target; translate the misses."""
        stats = self.stats
        stats.segments = len(segments)
        unique: dict[str, tuple[Template, str]] = {}
        kept: set[str] = set()
        for template, kind in segments:
            if kind in self.source_language:
                kept.add(self.key(template, kind))
                continue
            if needs_translation(template):
                unique.setdefault(self.key(template, kind), (template, kind))
            else:
                stats.no_text += 1
        stats.unique = len(unique)
        stats.kept = len(kept)
        jobs: list[Job] = []
        broken: list[str] = []
        for key, (template, kind) in unique.items():
            hints = self.glossary.hints_in(template.text)
            entry = self.tm.get(key)
            if entry is not None and (entry.status == "reviewed" or entry.hints == hints):
                if entry.hints != hints:
                    stats.warnings.append(f"reviewed entry {key} was made with other glossary hints; review it")
                # entries are edited by hand in review: check them as strictly as a machine answer
                found = check.problems(template.text, entry.target, hints if entry.hints == hints else {},
                                       self.glossary.allow_latin, self.literals, self.glossary.avoid)
                if entry.target != entry.target.strip():  # jtau records translations stripped
                    found.append("spaces or line breaks around the translation")
                if found:
                    where = entry.where or self.tm.path
                    broken.append(f"{where}: {key} {clip(template.text, 60)!r}: {'; '.join(found)}")
                self.targets[key] = entry.target
                stats.hits += 1
            else:
                jobs.append(Job(key, kind, template.text, hints))
        if broken:
            raise InputError(f"{len(broken)} translation-memory entries are not valid translations of their "
                             "source; fix their target (or delete the entry to translate it again)", first(broken))
        if not jobs:
            return stats
        if self.offline:
            listed = first(f"{job.key} ({job.kind}): {clip(job.source, 200)}" for job in jobs)
            raise CheckFailed(f"--offline: the translation memory lacks {counted(len(jobs), 'segment')}", listed,
                              run=("tm", "export", self.tm.domain, "-o", "FILE"),
                              run_label="to list them all for translators, run")
        self.pending = jobs
        if self.dry_run or self.client is None:
            stats.untranslated = len(jobs)
            stats.pending_chars = sum(len(job.source) for job in jobs)
            stats.pending_requests = len(batches(jobs, self.batch_size))
            return stats
        if progress:
            progress.start(len(jobs))
        failures = self.client.translate(jobs, self.tm.record, progress.advance if progress else lambda n: None)
        stats.sent = len(jobs)
        stats.requests = self.client.requests
        for job in jobs:
            entry = self.tm.entries.get(job.key)
            if entry is not None and job.key not in {f.job.key for f in failures}:
                self.targets[job.key] = entry.target
        if failures:
            raise CheckFailed(f"{counted(len(failures), 'segment')} got no valid translation; the others are saved in "
                              f"the translation memory, run again to retry", first(failures))
        return stats

    def target(self, template: Template, kind: str) -> str:
        if not needs_translation(template):
            return LABEL_COLON.sub("：", template.text) if self.locale.startswith("ja") else template.text
        return self.targets.get(self.key(template, kind), template.text)
