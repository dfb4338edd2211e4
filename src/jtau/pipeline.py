"""`jtau localize`: the stages in order, with nothing written until everything validated.

    rules -> source + task repairs -> maps -> structured swap -> text: templates
          -> translation -> render -> validate -> write | check

The pipeline localizes for one arm (jtau.arms, `Options.arm`; default `ja`, J-tau itself): the
localizer converts only the kinds the arm localizes, an English-text arm renders the English
templates (no memory), and validation runs the invariants that apply.  `en` is the source with
the task repairs (no stage but loading runs).  Arms other than `ja` are built by jtau.arm_cache.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from jtau.arms import JTAU_ARM
from jtau.arms import arm as arm_named
from jtau.domain import LocalizedDomain
from jtau.errors import InputError, OutOfDate, ValidationFailed
from jtau.glossary import Glossary, load_glossary
from jtau.maps import EntityMaps, project_maps
from jtau.patches import PatchReport, TaskPatch, apply_patches, load_patches
from jtau.project import Project, refuse_installed
from jtau.rules import DomainRules, load_rules
from jtau.source import SourceDomain, load_domain
from jtau.source.formats import dump
from jtau.source.load import check_types, read_tasks
from jtau.swap.localizer import Localizer
from jtau.swap.structured import Problem, localize_db, localize_task_structure
from jtau.text import Recognizer, Renderer
from jtau.text.fields import TextFields
from jtau.text.graph import label_lines, labels, with_labels
from jtau.text.notation import Notation
from jtau.translate.client import Endpoint, MTClient, Settings
from jtau.translate.engine import Stats, Translator
from jtau.translate.tm import TranslationMemory
from jtau.util import jsonpath
from jtau.util.files import atomic_write, dump_json, ensure_writable, replace_folder
from jtau.util.gcpause import gc_paused
from jtau.util.listing import first, joined
from jtau.validate import Report, validate_domain
from jtau.write import check_files, manifest

POLICY_KIND = "policy"


@dataclass
class Options:
    """How to translate: where the memory is, whether and how to reach an endpoint."""
    tm: Path | None = None            # default: <root>/data/tm
    offline: bool = False
    dry_run: bool = False
    endpoint: Endpoint | None = None
    settings: Settings = field(default_factory=Settings)
    arm: str = JTAU_ARM               # what is localized (jtau.arms): J-tau itself by default
    validate: bool = True             # False: an empty report (`jtau tm` reads the segments, not the checks)


@dataclass
class Localization:
    rules: DomainRules
    source: SourceDomain
    maps: EntityMaps
    glossary: Glossary
    domain: LocalizedDomain
    report: Report
    outputs: dict[str, bytes]
    tm: TranslationMemory
    tm_bytes: bytes
    translation: Stats
    repairs: Repairs
    text: TextFields
    translator: Translator
    timings: dict[str, float] = field(default_factory=dict)
    text_fields: int = 0
    notes: list[str] = field(default_factory=list)  # what writing could not tidy (an old folder left)
    validated: bool = True  # False: `report` is empty, the checks did not run (Options.validate)


def raise_problems(problems: list[Problem]) -> None:
    if problems:
        many = len(problems) > 1
        raise InputError(f"{len(problems)} value{'s' if many else ''} cannot be localized: not covered by the entity "
                         f"maps or not of {'their' if many else 'its'} kind's form (add missing ones to entity_maps/, "
                         "`jtau maps propose` suggests entries)", first(problems))


@dataclass
class Repairs:
    patches: list[TaskPatch]
    report: PatchReport


def domain_glossary(rules: DomainRules, maps: EntityMaps, project: Project) -> Glossary:
    """The glossary, plus the domain's own glossary where it has one (`glossaries/ja.<domain>.yaml`:
    its terms touch no other domain's templates), plus the catalog's words as hints for a domain
    whose text names them."""
    glossary = load_glossary(project.glossary(maps.locale.locale))
    own = project.glossary(maps.locale.locale, rules.name)
    if own.exists():  # (a folder there is an error, not "no domain glossary")
        glossary = glossary.merged(load_glossary(own))
    if rules.catalog_hints:
        glossary = glossary.with_hints(maps.catalog.text_terms(), maps.digests["entity_maps/catalog.yaml"],
                                       maps.catalog.value_terms(), frozenset(maps.catalog.option_names))
    return glossary


def load_repaired(rules: DomainRules, project: Project, source_dir: Path | None = None
                  ) -> tuple[SourceDomain, Repairs]:
    """The source domain with its task repairs (task_patches/<domain>/) applied."""
    source = load_domain(rules, source_dir)
    patches = load_patches(project.patches(rules.name))
    repairs = Repairs(patches, apply_patches(source.tasks, patches))
    if repairs.report.applied:  # a repair may give a field another type
        check_types(source.path, rules, source.db, source.tasks, f" as repaired by task_patches/{rules.name}/")
    return source, repairs


@gc_paused()
def localize(domain: str, project: Project, source_dir: Path | None = None, progress=None,
             options: Options | None = None) -> Localization:
    """Build the localized domain in memory and validate it; raise on any problem.
    Translations obtained on the way are already durable in the memory's journal."""
    options = options or Options()
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = now - clock
        clock = now
        if progress:
            progress.stage(stage)

    rules = load_rules(domain)
    arm = _arm(options.arm)
    source, repairs = load_repaired(rules, project, source_dir)
    maps = project_maps(project)
    glossary = domain_glossary(rules, maps, project)
    tm = TranslationMemory(options.tm or project.tm, domain)
    lap("load")

    loc = Localizer.for_rules(maps, rules, arm)
    problems: list[Problem] = []
    db = source.fresh_db()
    tasks = source.fresh_tasks()
    unchanged = not (arm.japanese_text or arm.localizes_entities)  # `en`: the repaired source as it is
    if not unchanged:
        localize_db(db, rules, loc, problems)
        for index, task in enumerate(tasks):
            localize_task_structure(task, index, rules, loc, problems)
    lap("swap")

    try:
        recognizer = Recognizer.for_rules(maps, rules, source.db, glossary)
    except ValueError as exc:
        raise InputError(f"entity maps and glossary: {exc}") from None
    text = TextFields(recognizer, Renderer(loc, glossary, rules.city_as_address))
    policies = dict(source.policies)
    documents = source.fresh_documents()
    graph_labels = {name: labels(graph) for name, graph in source.graphs.items()}
    if not unchanged:
        for index, task in enumerate(tasks):
            text.add_task(task, index, rules, problems)
        for pattern, kind in rules.db_text.items():
            for path, container, key in list(jsonpath.find(db, pattern)):
                text.add(container, key, kind, rules.files.db_label, path, problems)
        for name in policies:
            text.add(policies, name, POLICY_KIND, name, (), problems, line=1)
        for name, document in documents.items():
            for key, kind in rules.documents.items():
                text.add(document, key, kind, name, (key,), problems)
        for name, texts in graph_labels.items():
            for index, line in enumerate(label_lines(source.graphs[name])):
                text.add(texts, index, POLICY_KIND, name, (index,), problems, line=line)
    check_cited_tools(source, rules)
    raise_problems(problems)
    lap("templates")

    client = None
    if options.endpoint and not (options.offline or options.dry_run):
        client = MTClient(options.endpoint, options.settings, glossary.allow_latin, frozenset(rules.enum_literals),
                          avoid=glossary.avoid)
    # a domain whose memory is still being written (rules `memory_partial`) keeps what it lacks in
    # English under --offline too, counted in the summary, instead of failing
    translator = Translator(tm, glossary, maps.locale.locale, client, options.offline and not rules.memory_partial,
                            options.dry_run,
                            options.settings.batch_size, frozenset(rules.enum_literals),
                            frozenset(rules.source_language))
    # an English-text arm renders the source's templates: nothing is looked up or sent
    stats = translator.fill(text.segments(), progress) if arm.japanese_text else Stats()
    lap("translate")

    text.render(translator.target if arm.japanese_text else english_target, problems)
    raise_problems(problems)
    if arm.japanese_text != arm.localizes_entities:  # a mixed arm's knowledge base in its notation
        notation_in_arm(documents, policies, db, rules, maps, arm)
    if collisions := loc.collisions():
        raise InputError("entity maps: different source values become the same value", collisions)
    files = rules.files
    tasks_bytes = dump_json(tasks)
    copies = {n: source.raw[n] for n in files.copy_ if n in source.raw}
    copies.update(task_subsets(source, tasks, tasks_bytes))
    copies.update({name: source.raw[name] if unchanged else with_labels(source.graphs[name], texts).encode("utf-8")
                   for name, texts in graph_labels.items()})
    localized = LocalizedDomain(domain, db, tasks, policies, copies, documents)
    outputs = {
        **db_outputs(files, db),
        files.tasks: tasks_bytes,
        **{name: text.encode("utf-8") for name, text in policies.items()},
        **{name: dump_json(document) for name, document in documents.items()},
        **copies,
    }
    tm_bytes = tm.render()
    inputs = {**maps.digests, f"domains/{domain}/rules.yaml": rules.digest,
              **{f"task_patches/{domain}/{p.path.name}": p.digest for p in repairs.patches},
              f"glossaries/{project.glossary(maps.locale.locale).name}": glossary.digest,
              f"tm/{tm.path.name}": _digest(tm_bytes)}
    outputs["manifest.json"] = dump_json(manifest(domain, maps.locale.locale, maps.locale.currency.rate,
                                                  source_digests(source, repairs), inputs, outputs,
                                                  arm=None if arm.name == JTAU_ARM else arm.name))
    lap("render")

    report = validate_domain(source, localized, maps, rules, glossary, arm) if options.validate else Report()
    lap("validate")
    return Localization(rules, source, maps, glossary, localized, report, outputs, tm, tm_bytes, stats,
                        repairs, text, translator, timings, text_fields=len(text.fields), validated=options.validate)


def notation_in_arm(documents: dict, policies: dict, db, rules: DomainRules, maps: EntityMaps, arm) -> None:
    """The knowledge base, the policies and the db's notes of a mixed arm through the notation rules of tool
    descriptions (text/notation.py): currency, argument examples, date formats and zones of the
    arm's entities, in its text ("the amount in USD" -> "in JPY" in `ja-entities`; 「1ポイントあたり
    1.25円」 -> 「$0.0125」 in `ja-text`)."""
    notation = Notation(maps)
    convert = notation.english_in_jtau if arm.localizes_entities else notation.japanese_in_source
    for document in documents.values():
        for key in rules.documents:
            if isinstance(document.get(key), str):
                document[key] = convert(document[key])
    for pattern in rules.db_text:
        for _, container, key in list(jsonpath.find(db, pattern)):
            if isinstance(container[key], str):
                container[key] = convert(container[key])
    for name, text in policies.items():
        policies[name] = convert(text)


def _arm(name: str):
    try:
        return arm_named(name)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def english_target(template, kind: str) -> str:
    """An English-text arm's text: the source template itself, its entities rendered for the arm."""
    return template.text


def check_cited_tools(source, rules) -> None:
    """Every tool a document cites (rules `cited_tool`: a pattern) is one of the toolkit's (or
    one the rules list as cited but absent upstream): else documents and toolkit disagree (exit 2)."""
    if not rules.cited_tool:
        return
    cited = re.compile(rules.cited_tool)
    known = {*rules.toolkit, *rules.absent_tools}
    unknown = [f"{name}: {key}: {tool!r}" for name, document in source.documents.items()
               for key in rules.documents for tool in cited.findall(document.get(key) or "")
               if tool not in known]
    if unknown:
        raise InputError(f"{len(unknown)} tool names the documents cite are not in the toolkit "
                         f"(rules/{rules.name}.yaml toolkit, absent_tools)", unknown)


def source_digests(source, repairs) -> dict[str, str]:
    """The source files' digests; a repaired tasks file's is that of the tasks as repaired, so
    26.3's tasks plus the repairs and τ³'s own tasks (which carry them) give one manifest."""
    digests = source.digests()
    if repairs.patches:
        digests[source.files.tasks] = _digest(dump_json(source.tasks))
    return digests


def db_outputs(files, db) -> dict[str, bytes]:
    if isinstance(files.db, str):
        return {files.db: dump(files.db, db)}
    return {name: dump(name, db[files.db_part(name)]) for name in files.db_files}


def task_subsets(source: SourceDomain, tasks: list[dict], tasks_bytes: bytes) -> dict[str, bytes]:
    """Other task files (telecom's tasks_full.json, tasks_small.json): the localized tasks of
    the same ids; a byte-identical copy of the tasks file stays a byte-identical copy."""
    out = {}
    by_id = {t["id"]: t for t in tasks}
    for name in source.files.task_subsets:
        if name not in source.raw:
            continue
        if source.raw[name] == source.raw[source.files.tasks]:
            out[name] = tasks_bytes
            continue
        subset = read_tasks(source.path / name, source.raw[name])
        unknown = [t["id"] for t in subset if t["id"] not in by_id]
        if unknown:
            raise InputError(f"{source.path / name}: tasks not in {source.files.tasks}: {joined(unknown, 5)}")
        out[name] = dump_json([by_id[t["id"]] for t in subset])
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def finish(result: Localization, out: Path, check: bool) -> list[str]:
    """Write the outputs and the memory (or, with check, compare them); returns what changed."""
    if not result.validated:
        raise ValueError(f"{result.rules.name}: not validated (Options.validate): nothing is written unchecked")
    if result.report.errors:
        raise ValidationFailed(f"{result.rules.name}: {len(result.report.errors)} validation errors; nothing written",
                          first(result.report.errors))
    tm_path = result.tm.path
    if check:
        stale = check_files(out, result.outputs)
        on_disk = tm_path.read_bytes() if tm_path.is_file() else b""
        if on_disk != result.tm_bytes:
            stale.append(f"{tm_path}: differs from the memory this run would write")
        if stale:
            raise OutOfDate(f"{out}: committed output is stale", stale, run=("localize", result.rules.name))
        return []
    # All or nothing: the domain folder is staged, the memory replaced, then the folder swapped
    # whole (the old memory comes back if the swap fails); a reader never sees a db and tasks from
    # different runs.  The journal goes last, once the memory holds its entries.
    old_tm = tm_path.read_bytes() if tm_path.is_file() else None
    tm_changed = bool(result.tm_bytes or old_tm is not None) and old_tm != result.tm_bytes
    if tm_changed:
        refuse_installed(tm_path, "jtau localize (its translation memory)", "--tm DIR")
        ensure_writable(tm_path, folder=False)

    def write_memory() -> None:
        if tm_changed:
            try:
                atomic_write(tm_path, result.tm_bytes)
            except OSError as exc:
                raise InputError(f"{tm_path}: cannot write the translation memory: {exc.strerror or exc}; "
                                 "nothing was changed (translations received are kept in the journal)") from None

    def restore_memory() -> None:
        if tm_changed:
            if old_tm is None:
                tm_path.unlink(missing_ok=True)
            else:
                atomic_write(tm_path, old_tm)

    changed = replace_folder(out, result.outputs, write_memory, restore_memory, result.notes.append)
    result.tm.discard_journal()
    return ([str(tm_path)] if tm_changed else []) + changed
