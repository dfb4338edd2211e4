"""The amounts of a task's text are the source's, in the arm's money.

Every amount the source's text of a task field names (as the recognizer reads it: `$1,014.80`,
"$3-4k", "twenty bucks", a figure of the rules' `money_in_words`) is in the arm's text of that field,
the same where the arm keeps the source's entities, exactly x rate where it has J-tau's, and the arm's
text names no other amount.  A translator who wrote an amount as text (`300,000円近く` typed, not a
placeholder) or wrote a different figure is caught here; the currency of the other locale is the
locale check's (validate/locale.py).  Amounts are read as each arm writes them: `12,300円`,
`300,000〜400,000円` in Japanese; `¥12,300`, `¥300,000-400,000` in English; `$123`, `$3,000-4,000`.
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal

from jtau.arms import Arm
from jtau.text.recognize import Recognizer
from jtau.text.render import MONEY_NUMBER, THOUSANDS
from jtau.util.jsonpath import format_path
from jtau.validate.finding import Finding

FIGURE = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
YEN_JA = re.compile(rf"(?<![\d.,])({FIGURE})(?:〜({FIGURE}))?円(?!単位)")
YEN_EN = re.compile(rf"[¥￥]({FIGURE})(?:-({FIGURE}))?")
DOLLARS = re.compile(rf"\$({FIGURE})(?:-\$?({FIGURE}))?")


def _decimal(figure: str) -> Decimal:
    return Decimal(figure.replace(",", ""))


def source_amounts(text: str, recognizer: Recognizer, figures: frozenset[str] = frozenset()) -> Counter:
    """The dollar amounts of a source text, each figure of a range on its own."""
    found: Counter = Counter()
    for _, entity in recognizer.templatize(text, figures).entities:
        if entity.kind == "MONEY":
            scale = 1000 if THOUSANDS.search(entity.value[0]) else 1
            found.update(_decimal(n) * scale for n in MONEY_NUMBER.findall(entity.value[0]))
    return found


def arm_amounts(text: str, arm: Arm) -> Counter:
    """The amounts of an arm's text, as the arm writes its money."""
    if not arm.localizes_entities:
        pattern = DOLLARS
    else:
        pattern = YEN_JA if arm.japanese_text else YEN_EN
    return Counter(_decimal(n) for m in pattern.finditer(text) for n in m.groups() if n)


def check(fields: list[tuple[tuple, str]], arm_tasks: list[dict], arm: Arm, rate: Decimal,
          recognizer: Recognizer, label: str, figures: frozenset[str] = frozenset()) -> tuple[list[Finding], int]:
    """Errors naming the field and the amounts expected and found; the number of amounts checked."""
    factor = rate if arm.localizes_entities else Decimal(1)
    errors: list[Finding] = []
    checked = 0
    read: dict[str, Counter] = {}  # by text: telecom's 13,000 task texts are a few hundred
    read_arm: dict[str, Counter] = {}
    for path, text in fields:
        if text not in read:
            read[text] = Counter({amount * factor: n for amount, n in
                                  source_amounts(text, recognizer, figures).items()})
        expected = read[text]
        localized = arm_tasks[path[0]]
        for key in path[1:]:
            localized = localized[key]
        if localized not in read_arm:
            read_arm[localized] = arm_amounts(localized, arm)
        got = read_arm[localized]
        checked += sum(expected.values())
        if expected != got:
            missing, extra = expected - got, got - expected
            errors.append(Finding("task text money", f"amounts {_shown(missing)} expected, {_shown(extra)} found "
                                  "instead", label, format_path(path)))
    return errors, checked


def _shown(amounts: Counter) -> str:
    return ", ".join(f"{a.normalize():,f}" + (f" x{n}" if n > 1 else "") for a, n in sorted(amounts.items())) or "none"
