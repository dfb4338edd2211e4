"""Run every check on a localized domain against its source; collect errors and numbers.

For an arm other than `ja` (jtau.arms) the invariants that apply: schema, money (J-tau's
entities: rate x source as integers; the source's: the source's amounts), references,
identities and distinct values for every arm; no leak where the entities are J-tau's; the
Japanese-language QA where the text is Japanese (the source's names, places and emails allowed
where the entities are the source's); no word of the other locale in any text, in every arm
(validate/locale.py).

Each problem is a Finding (validate/finding.py) whose `check` names what found it: tasks (the task
ids), schema, money, identity, references, distinct values, passengers, leaks, task text money,
hometowns, locale, cited tools, language (the language QA, whose warnings are review material)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from jtau.arms import ARMS, JTAU_ARM, Arm
from jtau.domain import LocalizedDomain
from jtau.glossary import EMPTY, Glossary
from jtau.maps.model import EntityMaps
from jtau.rules import MONEY_KINDS, DomainRules, identities
from jtau.source import SourceDomain
from jtau.source.schema import check_schema
from jtau.swap.localizer import Localizer
from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.validate import hometowns, integrity, language, leaks, money, text_money
from jtau.validate.finding import Finding, placed
from jtau.validate.locale import check_texts, task_texts


@dataclass
class Report:
    """What validation found: errors (validation fails), warnings (review material), numbers measured."""
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    stats: dict[str, object] = field(default_factory=dict)

    def add(self, name: str, errors: list[Finding], stat=None) -> None:
        self.errors += errors
        if stat is not None:
            self.stats[name] = stat


def _patterns(table: dict[str, str], *kinds: str) -> list[str]:
    return [pattern for pattern, k in table.items() if k in kinds]


def validate_domain(source: SourceDomain, out: LocalizedDomain, maps: EntityMaps,
                    rules: DomainRules, glossary: Glossary = EMPTY, arm: Arm | None = None) -> Report:
    report = Report()
    files = rules.files
    arm = arm or ARMS[JTAU_ARM]
    rate = maps.locale.currency.rate if arm.localizes_entities else Decimal(1)
    if isinstance(files.db, str) and "db" in rules.schemas:
        report.add("schema", placed("schema", check_schema(out.db, rules.schema_path("db"), files.db), files.db))
    for name in files.db_files if not isinstance(files.db, str) else []:  # one schema per db file
        part = files.db_part(name)
        if part in rules.schemas:
            report.errors += placed("schema", check_schema(out.db[part], rules.schema_path(part), name), name)
    if "tasks" in rules.schemas:
        schema_errors = check_schema(out.tasks, rules.schema_path("tasks"), files.tasks, item_schema=True)
        report.errors += placed("schema", schema_errors, files.tasks)
    if len(out.tasks) != len(source.tasks) or [t["id"] for t in out.tasks] != [t["id"] for t in source.tasks]:
        report.errors.append(Finding("tasks", "task ids differ from the source", files.tasks))
        return report

    whole = arm.localizes_entities  # yen are whole; the source's dollars are as the source has them
    errors, checked = money.check_amounts(source.db, out.db, _patterns(rules.db, *MONEY_KINDS), rate, files.db_label,
                                          whole=whole)
    report.add("db amounts = rate x source", errors, checked)
    task_money = 0
    money_tools = {tool: (_patterns(table, *MONEY_KINDS), _patterns(table, "money_expression"))
                   for tool, table in rules.tools.items()}
    action_pairs = list(zip(integrity.actions(source.tasks, rules), integrity.actions(out.tasks, rules)))
    for (path, s_action, _), (_, o_action, _) in action_pairs:
        amounts, expressions = money_tools.get(s_action.get("name"), ([], []))
        if not amounts and not expressions:
            continue
        prefix = path + ("arguments",)
        errors, checked = money.check_amounts(s_action.get("arguments"), o_action.get("arguments"),
                                              amounts, rate, files.tasks, prefix, whole=whole)
        report.errors += errors
        task_money += checked
        report.errors += money.check_expressions(s_action.get("arguments"), o_action.get("arguments"),
                                                 expressions, rate, files.tasks, prefix)
    report.stats["action amounts = rate x source"] = task_money
    for name, identity in identities(rules).items():
        src_errors, src_holds = identity(source.db, rules, 1, files.db_label)
        texts, holds = identity(out.db, rules, rate, files.db_label)
        if src_errors == []:
            found = placed("identity", texts, files.db_label)
            if holds != src_holds:  # an identity may hold for only some records: as many as before
                found.append(Finding("identity", f"holds for {holds} records, for {src_holds} in the source",
                                     files.db_label, name))
            report.add(f"{name} identity holds", found, f"{holds}/{holds + len(found)}")

    errors, checked = integrity.check_references(source.db, out.db, action_pairs, rules, files.tasks)
    report.add("references checked", errors, checked)
    errors, counts = integrity.check_bijective(source.db, out.db, rules, files.db_label)
    report.add("distinct values (source = output)", errors, counts)
    if any(integrity.name_parents(table) for table in rules.tools.values()):  # tools that take passengers
        errors, checked = integrity.check_passengers(source.db, out.db, action_pairs, rules, files.tasks)
        report.add("passengers matched", errors, checked)

    if arm.localizes_entities:
        regex = leaks.leak_regex(maps)
        found = leaks.find_leaks(out.db, files.db_label, regex) + leaks.find_leaks(out.tasks, files.tasks, regex)
        for name, text in out.policies.items():
            found += leaks.find_leaks({"text": text}, name, regex)
        for name, document in out.documents.items():
            found += leaks.find_leaks(document, name, regex)
        report.add("leaks", found, len(found))
    recognizer = None
    if arm.japanese_text or arm.localizes_entities or rules.customers is not None:
        recognizer = Recognizer.for_rules(maps, rules, source.db, glossary)
    if arm.japanese_text or arm.localizes_entities:
        assert recognizer is not None  # built above for these arms
        report.add("task text amounts = rate x source", *text_money.check(
            task_texts(source.tasks, rules), out.tasks, arm, rate, recognizer, rules.files.tasks,
            recognizer.figures_in(rules.files.tasks)))
    if rules.customers is not None:
        report.add("hometowns = the customer's address", *_hometowns(source, out, maps, rules, glossary, arm,
                                                                    recognizer))
    other_locale, read = check_texts(out, rules, maps, arm)
    report.stats["texts read for the other locale (characters)"] = read
    report.add("words of the other locale", other_locale, len(other_locale))
    if rules.cited_tool and source.documents:
        errors, checked = integrity.check_cited_tools(source.documents, out.documents, rules)
        report.add("tool names the documents cite (as the source)", errors, checked)

    if not arm.japanese_text:
        return report
    names = (language.latin_of([*maps.banking.merchants.values(), *maps.banking.text_words.values()])
             if rules.whole_entities else frozenset())
    if not arm.localizes_entities:  # the source's names, places and merchants, as the source writes them
        names |= language.source_entity_words(maps)
    errors, warnings, checked = language.check_language(source, out, rules, glossary, action_pairs, names)
    report.add("text fields checked (language QA)", errors, checked)
    report.warnings += warnings  # listed by validate and localize --report, counted by localize
    return report


def _hometowns(source: SourceDomain, out: LocalizedDomain, maps: EntityMaps, rules: DomainRules,
               glossary: Glossary, arm: Arm, recognizer=None) -> tuple[list[Finding], int]:
    """validate/hometowns.py: each hometown the source confirms, as the arm renders it."""
    recognizer = recognizer or Recognizer.for_rules(maps, rules, source.db, glossary)

    customers = rules.customers
    assert customers is not None  # validate_domain checks hometowns only for rules with customers
    found = hometowns.source_hometowns(source.tasks, source.db, customers, task_texts(source.tasks, rules))
    renderer = Renderer(Localizer.for_rules(maps, rules, arm), glossary, rules.city_as_address)
    errors = hometowns.check(found, out.tasks, out.db, customers, recognizer, renderer, rules.files.tasks)
    return errors, len(found)
