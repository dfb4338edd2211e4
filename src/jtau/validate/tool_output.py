"""A tool's output commutes: for the same call, what an arm's tool answers states the source's
facts in the arm's notation and language.

`Reader(arm, ...).compare(source_text, arm_text)` reads both answers of one call (a text, or
JSON flattened to `key: value` lines) and returns what disagrees:

- `money`: every amount of the source's answer (`$1,014.80`, a money field's bare number such as
  `amount: -200.0`, a money tool's bare result) is in the arm's answer, the same where the arm
  keeps the source's entities, exactly x rate where it has J-tau's, and no other amount;
- `notation`: no amount half converted (`100円,389.98`), no `$` in a yen arm, no `円`/`¥` in a
  dollar arm, yen as the text's language writes it (`75,000円` in Japanese, `¥75,000` in English);
- `number`: the same other numbers (counts, days, rates, dates read as dates whatever their
  format), once the entities of each side (names, addresses, phones: any value of its db or
  call) and identifiers are set aside;
- `language`: a Japanese-text arm answers in Japanese (no run of English words, no English
  label) and an English-text arm in English (no Japanese outside its entities).

It needs no tau2: runtime/verify.py feeds it every golden call and every read call
(runtime/readings.py); each finding names the call and carries both texts.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from jtau.arms import Arm
from jtau.text.recognize import trie_regex
from jtau.translate.check import JAPANESE

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
DOLLAR = re.compile(rf"(?<![A-Za-z0-9])(-?)\$\s?(-?)({NUMBER})|(?<![\w.,])()()({NUMBER}) USD\b")
YEN_SUFFIX = re.compile(rf"(?<![A-Za-z0-9_.,\d])(-?)({NUMBER})円(?!単位)")  # 100円単位: a unit, no amount
YEN_SIGN = re.compile(rf"(-?)[¥￥]\s?(-?)({NUMBER})")
HALF_CONVERTED = re.compile(r"円[,.]\d|\d円\d")
DATE = re.compile(r"(?<!\d)(?:(\d{1,2})/(\d{1,2})/(\d{4})|(\d{4})[/-](\d{1,2})[/-](\d{1,2}))(?!\d)")
PLAIN_NUMBER = re.compile(r"(?<![A-Za-z0-9_.\u2064])(\d+(?:\.\d+)?)(?![A-Za-z0-9_\u2064]|\.\d)")
RESULT = re.compile(r"-?\d+(?:\.\d+)?")  # a tool's whole answer as a number (calculate)
AMOUNT = "\u2064"  # around an amount read, until bare figures beside it are read
MARKED = re.compile(f"{AMOUNT}([\\d.]+){AMOUNT}")
MARKED_ANYWHERE = re.compile(f"(?={AMOUNT}([\\d.]+){AMOUNT})")  # overlapping: what MARKED finds in any part
NEAR = 16  # characters between a bare figure and the amount it exemplifies ("2500 for $2,500")
UNIT = re.compile(r"\d[\d,]*円単位")  # 100円単位: how finely a yen amount is given (no English figure)
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# a run of word characters with a digit and a letter or "_" in it, tried only where a run starts
IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]*?\d)(?=[A-Za-z0-9_]*?[A-Za-z_])[A-Za-z0-9_]+")
ENGLISH_RUN = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][a-z']*(?:,? [A-Za-z][a-z']*)+(?![A-Za-z0-9_])")
ENGLISH_LABEL = re.compile(r"^[ \t-]*([A-Z][a-z]+(?: [A-Za-z]+)*):", re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`|https?://\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|'[a-z0-9_]+'")
LITERAL = re.compile(r"[a-z_]+")
AMOUNT_TEXT = re.compile(r"-?[$¥￥]-?[\d,]+(?:\.\d+)?|-?[\d,]*\d\.\d+|-?[\d,]+円")  # not a zip code
# what every match of a pattern holds: a text without it is not searched (most answers hold no amount)
NEEDS: dict[re.Pattern, tuple[str, ...]] = {DOLLAR: ("$", "USD"), YEN_SUFFIX: ("円",), YEN_SIGN: ("¥", "￥"),
                                            HALF_CONVERTED: ("円",), DATE: ("/", "-"), UNIT: ("円単位",),
                                            THOUSANDS: (",",)}
MAX_ENTITY = 160  # the longest value set aside as an entity (longer strings are texts)
MASK = "\u2063"  # what a set-aside span becomes: neither a word nor a number


@dataclass(frozen=True)
class Finding:
    kind: str       # money, notation, number, language
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def flatten(text: str) -> str:
    """A JSON answer as `parent.key: value` lines (so a field's name says what its number is:
    `flights.price: 166`, `prices.economy: 114`), any other text as it is."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return text
    try:
        data = json.loads(stripped)
    except ValueError:
        return text
    lines: list[str] = []

    def walk(value, parent: str, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, key, str(k))
        elif isinstance(value, list):
            for item in value:
                walk(item, parent, key)
        else:
            lines.append(f"{parent}.{key}: {value}" if parent else f"{key}: {value}")

    walk(data, "", "")
    return "\n".join(lines)


def _may_match(pattern: re.Pattern, text: str) -> bool:
    return any(needle in text for needle in NEEDS[pattern])


def _search(pattern: re.Pattern, text: str) -> re.Match | None:
    return pattern.search(text) if _may_match(pattern, text) else None


def _sub(pattern: re.Pattern, replace, text: str) -> str:
    return pattern.sub(replace, text) if _may_match(pattern, text) else text


@functools.lru_cache(maxsize=1 << 16)  # asked of every value of every call, again and again
def maskable(value: str) -> bool:
    """Whether a value is set aside wherever it occurs: three characters, or one that is not
    ASCII (a Japanese given name: 亮), and no amount or figure ("$1,440.00", "15000.00") and no
    enum literal (a call's `economy` is a word of the answer's keys too)."""
    size = len(value.strip())
    return size <= MAX_ENTITY and (size >= 3 or (size >= 1 and not value.strip().isascii())) \
        and not AMOUNT_TEXT.fullmatch(value.strip()) and not LITERAL.fullmatch(value)


class Side:
    """What one side sets aside before numbers and language are read: its entities (every
    string value of its db, its task and the call, three characters or more)."""

    def __init__(self, values):
        words = sorted({v for v in values if isinstance(v, str) and maskable(v)}, key=len, reverse=True)
        self.regex = whole(words)

    def mask(self, text: str, extra=()) -> str:
        """`text` with this side's entities (and `extra`: the call's own values) set aside, each
        where it is a whole value (the zip 20086 is not set aside inside the id 6200867091)."""
        for value in sorted({v for v in extra if isinstance(v, str) and maskable(v)}, key=len, reverse=True):
            text = replace_whole(text, value)
        return self.regex.sub(MASK, text) if self.regex is not None else text


def replace_whole(text: str, value: str) -> str:
    """`text` with each whole occurrence of `value` set aside (as `whole` matches it: no regex to
    compile for a call's few values)."""
    out, start = [], 0
    while (found := text.find(value, start)) >= 0:
        end = found + len(value)
        before, after = text[found - 1:found], text[end:end + 2]
        if (before and (before.isascii() and (before.isalnum() or before in "_."))) or \
                (after[:1].isascii() and (after[:1].isalnum() or after[:1] == "_")) or \
                (after[:1] in ".," and after[1:2].isdigit()):
            out.append(text[start:found + 1])
            start = found + 1
            continue
        out += [text[start:found], MASK]
        start = end
    out.append(text[start:])
    return "".join(out)


def whole(values) -> re.Pattern | None:
    """A regex of `values` (longest first) where no ASCII letter or digit goes on either side (the
    CVV 547 is not in $547.94)."""
    if not values:
        return None
    return re.compile(rf"(?<![A-Za-z0-9_.])(?:{trie_regex(sorted(values, key=len, reverse=True))})"
                      rf"(?![A-Za-z0-9_]|[.,]\d)")


class Reader:
    """Compares the answers of one call on the source and on an arm (jtau.arms)."""

    def __init__(self, arm: Arm, rate: Decimal, money_fields: set[str], words: AbstractSet[str] = frozenset(),
                 source: Side | None = None, localized: Side | None = None):
        """`money_fields`: the names of fields that hold amounts (`price`; `prices.*`: any field
        of an object named prices)."""
        self.arm, self.rate = arm, rate
        self.factor = rate if arm.localizes_entities else Decimal(1)
        # a field (`price`, `flights.price`: one parent at most) or any field of an object (`prices.*`),
        # the parent read once for all the names (one alternation a position, not one a name)
        fields = [re.escape(n) for n in sorted(money_fields) if not n.endswith(".*")]
        names = [re.escape(n[:-2]) + r"\.\w+" for n in sorted(money_fields) if n.endswith(".*")]
        names += [rf"(?:[^\s.:]+\.)?(?:{'|'.join(fields)})"] if fields else []
        self.money_field = re.compile(
            rf"(?:^|(?<=[\s{{,\"]))\"?(?:{'|'.join(names)})\"?: ?(-?\d+(?:\.\d+)?)(?![\d,])",
            re.MULTILINE) if money_fields else None
        self.words = words  # Latin words a Japanese answer may hold: field names, enum literals, tool names
        self.source, self.localized = source or Side(()), localized or Side(())

    # --- money -------------------------------------------------------------------------------

    def amounts(self, text: str, yen: bool, whole_result: bool = False, mask=lambda text: text):
        """The amounts of `text` in its currency and the text without them: a money field's
        figure first (`amount: 10220`, before `mask` sets the entities aside: a zip may be
        10220 too), then the amounts with their sign in the text `mask` leaves."""
        found: list[Decimal] = []

        def take(sign: str, figure: str) -> str:
            try:
                amount = Decimal(("-" if sign.count("-") % 2 else "") + figure.replace(",", ""))
            except InvalidOperation:
                return MASK
            found.append(amount)
            return f"{AMOUNT}{abs(amount)}{AMOUNT}"

        if whole_result and RESULT.fullmatch(text.strip()):
            take("", text.strip())
            return found, MASK
        if self.money_field is not None:
            text = self.money_field.sub(lambda m: m[0][:m.start(1) - m.start()] + take("", m[1]), text)
        text = mask(text)
        patterns = (YEN_SUFFIX, YEN_SIGN) if yen else (DOLLAR,)
        for pattern in patterns:
            text = _sub(pattern, lambda m: take("".join(signed(m)[:-1]), signed(m)[-1]), text)
        if found:  # "e.g., 2500 for $2,500": a bare figure beside an amount it equals is that amount
            # every amount the window of any figure below can find: most figures have none of theirs
            anywhere = {Decimal(a) for a in MARKED_ANYWHERE.findall(text) if a != "." and a.count(".") < 2}

            def example(m: re.Match) -> str:
                if Decimal(m[1]) not in anywhere:
                    return m[0]
                line_start = text.rfind("\n", 0, m.start()) + 1
                line_end = text.find("\n", m.end()) % (len(text) + 1)
                near = text[max(line_start, m.start() - NEAR):min(line_end, m.end() + NEAR)]
                beside = {Decimal(a) for a in MARKED.findall(near)}
                return take("", m[1]) if Decimal(m[1]) in beside else m[0]

            text = PLAIN_NUMBER.sub(example, text)
        return found, re.sub(f"{AMOUNT}[^{AMOUNT}]*{AMOUNT}", MASK, text)

    def notation(self, text: str) -> list[Finding]:
        out = []
        if _search(HALF_CONVERTED, text):
            out.append(Finding("notation", f"an amount half converted: {excerpt(text, HALF_CONVERTED)}"))
        if self.arm.localizes_entities:
            if _search(DOLLAR, text):
                out.append(Finding("notation", f"a dollar amount in a yen arm: {excerpt(text, DOLLAR)}"))
            wrong = YEN_SIGN if self.arm.japanese_text else YEN_SUFFIX
            if _search(wrong, text):
                out.append(Finding("notation", f"yen not as {'Japanese' if self.arm.japanese_text else 'English'} "
                                               f"writes it: {excerpt(text, wrong)}"))
        else:
            for pattern in (YEN_SUFFIX, YEN_SIGN):
                if _search(pattern, text):
                    out.append(Finding("notation", f"a yen amount in a dollar arm: {excerpt(text, pattern)}"))
        return out

    # --- the comparison ----------------------------------------------------------------------

    def compare(self, source: str, localized: str, money_result: bool = False,
                source_values=(), localized_values=()) -> list[Finding]:
        """What the arm's answer `localized` gets wrong against the source's answer `source`
        (`*_values`: each side's call arguments, set aside like its entities)."""
        if not isinstance(source, str) or not isinstance(localized, str):
            return [] if source == localized else [Finding("money", "one answer is no text")]
        data = flatten(localized)
        is_data = data is not localized  # a JSON answer: its strings are db values, which validate checks
        # each side's entities first: a whole-mapped value keeps its own notation
        # (`海外ATM手数料 - 第2段階（10,100円〜30,000円）` in English text)
        masked = self.localized.mask(data, localized_values)
        findings = self.notation(masked)
        s_amounts, s_rest = self.amounts(flatten(source), False, money_result,
                                         lambda text: self.source.mask(text, source_values))
        l_amounts, l_rest = self.amounts(data, self.arm.localizes_entities, money_result,
                                         lambda text: self.localized.mask(text, localized_values))
        expected = Counter(cents(a) * self.factor for a in s_amounts)
        got = Counter(cents(a) for a in l_amounts)
        if expected != got:
            missing, extra = expected - got, got - expected
            findings.append(Finding("money", f"{shown(missing)} expected, {shown(extra)} found instead"))
        s_numbers, l_numbers = numbers(s_rest), numbers(l_rest)
        if s_numbers != l_numbers:
            findings.append(Finding("number", f"{shown(s_numbers - l_numbers)} expected, "
                                              f"{shown(l_numbers - s_numbers)} found instead"))
        if not (is_data and self.arm.japanese_text):
            findings += self.language(masked)
        return findings

    def language(self, text: str) -> list[Finding]:
        text = CODE.sub(MASK, text)
        if not self.arm.japanese_text:
            found = JAPANESE.search(text)
            return [Finding("language", f"Japanese in an English answer: {excerpt(text, JAPANESE)}")] if found else []
        text = IDENTIFIER.sub(MASK, text)
        out = []
        for match in ENGLISH_LABEL.finditer(text):
            if match[1] not in self.words:
                out.append(Finding("language", f"an English label in a Japanese answer: {match[1]!r}"))
        for match in ENGLISH_RUN.finditer(text):
            words = match[0].replace(",", "").split()
            if not all(w in self.words for w in words) and match[0] not in self.words:
                out.append(Finding("language", f"English in a Japanese answer: {match[0]!r}"))
        return out[:3]


def numbers(text: str) -> Counter:
    """The numbers of a text as values: dates as dates (MM/DD/YYYY = YYYY/MM/DD = YYYY-MM-DD),
    `1,000` as 1000; identifiers (`HAT243`, `txn_9f2c`) and the figure 1 not at all."""
    text = IDENTIFIER.sub(MASK, text)
    out: Counter = Counter()

    def date(m: re.Match) -> str:
        month, day, year = (m[1], m[2], m[3]) if m[1] else (m[5], m[6], m[4])
        out[f"{year}-{int(month):02d}-{int(day):02d}"] += 1
        return MASK

    text = _sub(UNIT, MASK, _sub(DATE, date, text))
    text = _sub(THOUSANDS, "", text)
    for m in PLAIN_NUMBER.finditer(text):
        try:
            out[plain(Decimal(m[1]))] += 1
        except InvalidOperation:
            pass
    del out["1"]  # "a", "daily", "missing 1 argument": each language writes one its own way (1日あたり)
    return out


def signed(match: re.Match) -> list[str]:
    """The groups of the alternative that matched: its signs, then its figure."""
    return [group for group in match.groups() if group is not None]


def cents(amount: Decimal) -> Decimal:
    """tau2's float arithmetic writes 4.999999999999716 for 5.00: amounts have cents."""
    exponent = amount.as_tuple().exponent
    assert isinstance(exponent, int)  # an amount read from a figure is finite
    return amount.quantize(Decimal("0.01")).normalize() if exponent < -2 else amount


def plain(amount: Decimal) -> str:
    """1200.00 -> "1200", 7.50 -> "7.5" (never 1.2E+3)."""
    text = f"{amount.normalize():f}"
    return text


def shown(counter: Counter) -> str:
    items = [(plain(value) if isinstance(value, Decimal) else str(value)) + (f" x{n}" if n > 1 else "")
             for value, n in sorted(counter.items(), key=lambda kv: str(kv[0]))]
    if not items:
        return "nothing"
    return ", ".join(items[:6]) + (f" and {len(items) - 6} more" if len(items) > 6 else "")


def excerpt(text: str, pattern: re.Pattern, width: int = 30) -> str:
    match = pattern.search(text)
    assert match is not None  # excerpted only where the pattern is found
    start, end = max(0, match.start() - width), min(len(text), match.end() + width)
    return repr(text[start:end].replace(MASK, "…"))
