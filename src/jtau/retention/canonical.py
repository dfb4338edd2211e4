"""Actions as comparable tokens.

Route level: the step, which is the tool name (a tool that carries another tool's call,
banking's `call_discoverable_agent_tool`, is the inner tool; a tool whose argument names a
tool, `unlock_discoverable_agent_tool`, is that pair: rules `route_arguments`).  Full level: the
step with its canonical arguments: keys sorted, integral floats written as integers, free text
(kind `text` in the domain rules: a transfer's summary, a search query, a grep pattern)
blanked, a `calculate` expression replaced by its value.

Where the two sides of a comparison hold their entities in different locales (the English
source and an arm with J-tau's entities: `ja`, `ja-entities`, jtau.arms), the source side's
arguments are localized through the very conversions that made J-tau (the maps, the rate, the
formats: swap.Localizer, along the argument kinds of the domain rules), so that `emma_kim_9957`,
348 (dollars) and `JFK` compare equal to `emi_kaneko_9957`, 34800 (yen) and `KIX`.  A value the
maps do not know stays as it is: an invented id is a different action.  Notations J-tau's tools
take alike are one value: a banking date as MM/DD/YYYY or as J-tau's YYYY/MM/DD.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

import orjson

from jtau.arms import ARMS
from jtau.domains import source_of
from jtau.maps.model import EntityMaps
from jtau.retention.diagnostics import ActionChecks
from jtau.rules import DomainRules, available, load_rules
from jtau.swap import notations
from jtau.swap.localizer import Localizer, Unmapped
from jtau.swap.money import MoneyError, evaluate
from jtau.util import jsonpath

TEXT = "text"


def _number(value: Decimal):
    return int(value) if value == value.to_integral_value() else float(value)


def normalize(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def localized_space(language: str) -> bool:
    """Whether a side's tool arguments hold J-tau's entities (the arms `ja`, `ja-entities`)."""
    arm = ARMS.get(language)
    return bool(arm and arm.localizes_entities)


def rules_of(benchmark: str) -> DomainRules | None:
    """The J-tau domain rules of a tau2 domain name without its arm (`telecom-workflow` is
    telecom's tasks under another policy: its spec's variants, jtau.domains)."""
    found = source_of(f"{benchmark}_ja")
    name = found[0] if found else benchmark
    return load_rules(name) if name in available() else None


@dataclass(frozen=True)
class Step:
    """One action as the analysis compares it: the step's name and its canonical arguments."""
    name: str
    args: dict


class Canonicalizer:
    """(benchmark, side, actions) -> route tokens and full tokens (ints), and, for a side in
    the source's entity space, the full tokens of its arguments localized (`full_localized`)."""

    def __init__(self, maps: EntityMaps | None):
        self.maps = maps
        self.rate = maps.locale.currency.rate if maps else Decimal(1)
        self.rules: dict[str, DomainRules | None] = {}
        self.localizers: dict[str, Localizer] = {}
        self.ids: dict[bytes, int] = {}
        self.names: list[str] = []
        self.checks: ActionChecks | None = None

    def _rules(self, benchmark: str) -> DomainRules | None:
        if benchmark not in self.rules:
            self.rules[benchmark] = rules_of(benchmark)
        return self.rules[benchmark]

    def _localizer(self, rules: DomainRules) -> Localizer:
        if rules.name not in self.localizers:
            assert self.maps is not None, "encode localizes a side only when there are maps"
            self.localizers[rules.name] = Localizer.for_rules(self.maps, rules)
        return self.localizers[rules.name]

    def token(self, key: bytes, name: str) -> int:
        token = self.ids.get(key)
        if token is None:
            token = self.ids[key] = len(self.ids)
            self.names.append(name)
        return token

    # --- one action ------------------------------------------------------------------------

    def step(self, rules: DomainRules | None, tool: str, args: dict) -> Step:
        """The step an action is: the inner tool of a carrying call, a tool with the tool it names."""
        if rules is None:
            return Step(tool, args)
        spec = rules.tasks.nested_calls.get(tool)
        if spec is not None:
            inner, raw = args.get(spec["name"]), args.get(spec["arguments"], "{}")
            try:
                parsed = json.loads(raw) if isinstance(raw, str) else raw
            except json.JSONDecodeError:
                parsed = None
            if isinstance(inner, str) and isinstance(parsed, dict):
                return Step(inner, parsed)
            return Step(tool, args)
        named = rules.route_arguments.get(tool)
        if named and isinstance(args.get(named), str):
            return Step(f"{tool}:{args[named]}", {k: v for k, v in args.items() if k != named})
        return Step(tool, args)

    def args(self, rules: DomainRules | None, step: Step, localize: bool) -> dict:
        """Canonical arguments; `localize`: the source's entities as J-tau holds them."""
        table = rules.tools.get(step.name, {}) if rules else {}
        if rules is None or not table:
            return normalize(step.args)
        args = orjson.loads(orjson.dumps(step.args, option=orjson.OPT_NON_STR_KEYS)) if step.args else {}
        scale = self.rate if localize else Decimal(1)
        for pattern, kind in table.items():
            if pattern.endswith(jsonpath.KEYS):
                continue
            for _, container, key in list(jsonpath.find(args, pattern)):
                value = container[key]
                if kind == TEXT:
                    container[key] = ""
                elif kind == "money_expression":
                    try:
                        container[key] = _number(evaluate(str(value)) * scale)
                    except (MoneyError, ZeroDivisionError, ArithmeticError):
                        pass
                elif localize and value is not None:
                    container[key] = self._localize(rules, kind, value, container, key)
                elif kind == "date_mdy" and isinstance(value, str):
                    container[key] = self._same_date(value)
        return normalize(args)

    def _localize(self, rules: DomainRules, kind: str, value, container, key):
        loc = self._localizer(rules)
        try:
            if kind == "option_value" and isinstance(key, str):
                return loc.option_value(value, key)
            return loc.convert(kind, value)
        except (Unmapped, MoneyError, ArithmeticError, TypeError, ValueError):
            return value

    @staticmethod
    def _same_date(value: str) -> str:
        """A banking date in either notation the boundary takes, as J-tau writes it."""
        try:
            return notations.date_ja(value)
        except notations.FormatError:
            return value

    # --- a trace ---------------------------------------------------------------------------

    def diagnose(self, benchmark: str, actions: list[dict]) -> dict:
        """Name-order and parameter-language errors of a trace's calls (diagnostics.ActionChecks)."""
        if self.checks is None:
            self.checks = ActionChecks(self.maps)
        rules = self._rules(benchmark)
        steps = [self.step(rules, a["tool"], a.get("args") or {}) for a in actions]
        return self.checks.count(rules, steps)

    def encode(self, benchmark: str, language: str, actions: list[dict]
               ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]:
        """(route tokens, full tokens, full tokens with the source's entities localized: None
        for a side already in J-tau's space or a benchmark without maps)."""
        rules = self._rules(benchmark)
        in_source_space = not localized_space(language)
        mapped = self.maps is not None and rules is not None and in_source_space
        route: list[int] = []
        full: list[int] = []
        localized: list[int] | None = [] if mapped else None
        for action in actions:
            step = self.step(rules, action["tool"], action.get("args") or {})
            route.append(self.token(b"R" + step.name.encode(), step.name))
            full.append(self._full(step, self.args(rules, step, False)))
            if localized is not None:
                localized.append(self._full(step, self.args(rules, step, True)))
        return tuple(route), tuple(full), tuple(localized) if localized is not None else None

    def _full(self, step: Step, args: dict) -> int:
        canonical = orjson.dumps(args, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        return self.token(b"F" + step.name.encode() + b"\x00" + canonical, step.name)
