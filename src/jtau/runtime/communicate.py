"""Fair `communicate_info` grading for J-tau domains.

tau2 checks that each `communicate_info` item (J-tau: plain yen digits, `162800`) occurs in an
agent message after removing ASCII commas.  A Japanese agent writes the same amount as
`162,800円`, `16万2,800円`, `16万2800円`, `１６２，８００円` or `十六万二千八百円`; only the first
passes tau2's check.  `install()` makes tau2 also accept the message with every amount written
as plain digits, for J-tau domains only: the check looks up the domain that tau2's
`evaluate_simulation` is grading (whatever way it was imported) and leaves every other domain
exactly as tau2 grades it.  A different amount still fails: normalizing never changes a value.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from types import FrameType

KANJI_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
BIG_UNITS = {"万": 10**4, "億": 10**8, "兆": 10**12}
NUMBER = re.compile(r"[0-9〇一二三四五六七八九十百千][0-9,〇一二三四五六七八九十百千万億兆]*")


def _small(text: str) -> int | None:
    """A number below 10,000 in digits, kanji digits, or kanji with 十/百/千."""
    if text.isdigit():
        return int(text)
    total, digit = 0, None
    for char in text:
        if char.isdigit():
            digit = (digit or 0) * 10 + int(char)
        elif char in KANJI_DIGITS:
            digit = (digit or 0) * 10 + KANJI_DIGITS[char]
        elif char in SMALL_UNITS:
            total += (1 if digit is None else digit) * SMALL_UNITS[char]
            digit = None
        else:
            return None
    return total + (digit or 0)


def number_value(text: str) -> int | None:
    """`16万2800` -> 162800, `十六万二千八百` -> 162800, `162800` -> 162800; None if not a number."""
    total, rest = 0, text
    for unit, value in sorted(BIG_UNITS.items(), key=lambda kv: -kv[1]):
        if unit in rest:
            head, rest = rest.split(unit, 1)
            part = _small(head) if head else 1
            if part is None:
                return None
            total += part * value
    if rest:
        part = _small(rest)
        if part is None:
            return None
        total += part
    return total


def spoken_to_values(text: str, spoken: dict[str, list[str]]) -> str:
    """Each spoken form (マスターカード) as the value communicate_info holds (mastercard)."""
    for value, forms in spoken.items():
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, value)
    return text


def normalize_amounts(text: str) -> str:
    """Every number written the Japanese way (full-width, 万/億, kanji) as plain digits;
    commas between digits go, as tau2 removes them."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(?<=\d),(?=\d)", "", text)

    def plain(match: re.Match) -> str:
        if not re.search(r"\d", match[0]) and not text.startswith("円", match.end()):
            return match[0]  # kanji numerals only as an amount: 十分 is "enough", not 10分
        value = number_value(match[0].replace(",", ""))
        return match[0] if value is None else str(value)

    return NUMBER.sub(plain, text)


def _grading_domain() -> str | None:
    """The `domain` argument of tau2's evaluate_simulation up the stack, if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "evaluate_simulation" and "domain" in frame.f_locals:
            return frame.f_locals["domain"]
        frame = frame.f_back
    return None


def install(domains: set[str], spoken: dict[str, list[str]] | None = None) -> None:
    """Make tau2's communicate check accept Japanese amount notations (and the spoken forms of
    `spoken`, entity_maps/locale.yaml) for `domains`."""
    from tau2.data_model.message import AssistantMessage
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    original = CommunicateEvaluator.__dict__["evaluate_communicate_info"].__func__
    if getattr(original, "jtau_domains", None) is not None:
        original.jtau_domains |= domains
        original.jtau_spoken.update(spoken or {})
        return

    def evaluate_communicate_info(cls, full_trajectory, communicate_info):
        checks = original(cls, full_trajectory, communicate_info)
        if _grading_domain() not in evaluate_communicate_info.jtau_domains:
            return checks
        texts = [spoken_to_values(normalize_amounts(m.content), evaluate_communicate_info.jtau_spoken).lower()
                 for m in full_trajectory if isinstance(m, AssistantMessage) and m.has_text_content()]
        for check in checks:
            if not check.met and any(check.info.lower() in text for text in texts):
                check.met = True
                check.justification = f"Information '{check.info}' communicated (in a Japanese notation)."
        return checks

    # function attributes: what a later install() extends, and tau2's own check
    evaluate_communicate_info.jtau_domains = set(domains)  # type: ignore[attr-defined]
    evaluate_communicate_info.jtau_spoken = dict(spoken or {})  # type: ignore[attr-defined]
    evaluate_communicate_info.__wrapped__ = original  # type: ignore[attr-defined]
    CommunicateEvaluator.evaluate_communicate_info = classmethod(evaluate_communicate_info)
