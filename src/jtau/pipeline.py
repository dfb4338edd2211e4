"""`jtau localize`: the stages in order, with nothing written until everything validated.

    rules -> source -> maps -> structured swap -> free text -> validate -> write | check
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from jtau import jsonpath
from jtau.domain import LocalizedDomain
from jtau.errors import CheckFailed, InputError
from jtau.maps import EntityMaps, load_maps
from jtau.project import maps_dir
from jtau.rules import DomainRules, load_rules
from jtau.source import SourceDomain, load_domain
from jtau.swap.localizer import Localizer
from jtau.swap.structured import Problem, localize_db, localize_task_structure
from jtau.text import Recognizer, Renderer
from jtau.text.fields import TextLocalizer
from jtau.validate import Report, validate_domain
from jtau.write import check_files, dump_json, manifest, write_files

MAX_LISTED = 40


@dataclass
class Localization:
    rules: DomainRules
    source: SourceDomain
    maps: EntityMaps
    domain: LocalizedDomain
    report: Report
    outputs: dict[str, bytes]
    timings: dict[str, float] = field(default_factory=dict)
    templates: int = 0
    text_fields: int = 0


def _known_tokens(source: SourceDomain, rules: DomainRules) -> dict[str, set[str]]:
    known = {}
    for kind, token in rules.tasks.frozen_tokens.items():
        if token.known:
            known[kind] = {key for _, _, key in jsonpath.find(source.db, token.known)}
    return known


def raise_problems(problems: list[Problem]) -> None:
    if problems:
        listed = [str(p) for p in problems[:MAX_LISTED]]
        if len(problems) > MAX_LISTED:
            listed.append(f"... and {len(problems) - MAX_LISTED} more")
        raise InputError(f"{len(problems)} value{'s are' if len(problems) > 1 else ' is'} not covered by the entity maps "
                         "(add them to entity_maps/, `jtau maps propose` suggests entries)", listed)


def localize(domain: str, root: Path, source_dir: Path | None = None, progress=None) -> Localization:
    """Build the localized domain in memory and validate it; raise on any problem."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = now - clock
        clock = now
        if progress:
            progress(stage)

    rules = load_rules(domain)
    source = load_domain(rules, source_dir)
    maps = load_maps(maps_dir(root))
    lap("load")

    loc = Localizer(maps)
    problems: list[Problem] = []
    db = source.fresh_db()
    localize_db(db, rules, loc, problems)
    tasks = source.fresh_tasks()
    for index, task in enumerate(tasks):
        localize_task_structure(task, index, rules, loc, problems)
    lap("swap")

    try:
        recognizer = Recognizer(maps, rules.tasks.frozen_tokens, _known_tokens(source, rules))
    except ValueError as exc:
        raise InputError(f"entity maps: {exc}") from None
    text = TextLocalizer(recognizer, Renderer(loc))
    for index, task in enumerate(tasks):
        text.localize_task(task, index, rules, problems)
    policy = text.localize(source.policy, "policy", rules.files.policy, (), problems)
    raise_problems(problems)
    lap("text")

    localized = LocalizedDomain(domain, db, tasks, policy,
                                {n: source.raw[n] for n in rules.files.copy_ if n in source.raw})
    report = validate_domain(source, localized, maps, rules)
    lap("validate")

    outputs = {
        rules.files.db: dump_json(db),
        rules.files.tasks: dump_json(tasks),
        rules.files.policy: policy.encode("utf-8"),
        **localized.copies,
    }
    inputs = {**maps.digests, f"rules/{domain}.yaml": rules.digest}
    outputs["manifest.json"] = dump_json(manifest(domain, maps.locale.locale, maps.locale.currency.rate,
                                                  source.digests(), inputs, outputs))
    lap("serialize")
    return Localization(rules, source, maps, localized, report, outputs, timings,
                        templates=len(text.templates), text_fields=text.fields)


def finish(result: Localization, out: Path, check: bool) -> list[str]:
    """Write the outputs (or, with check, compare them); returns the changed file names."""
    if result.report.errors:
        raise CheckFailed(f"{result.rules.name}: {len(result.report.errors)} validation errors; nothing written",
                          result.report.errors[:MAX_LISTED])
    if check:
        stale = check_files(out, result.outputs)
        if stale:
            raise CheckFailed(f"{out}: committed output is stale; run: jtau localize {result.rules.name}", stale)
        return []
    return write_files(out, result.outputs)
