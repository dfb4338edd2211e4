"""Tool descriptions in an arm's locale (jtau.arms): the agent reads in a tool's description the
currency, the date format, the clock's zone and example airport codes it must pass, so those
follow the arm's entities while the words follow its text.

- `english_in_jtau(text)`: tau2's English docstrings for an arm with English text and J-tau's
  entities (`ja-entities`): `$500` -> `¥50,000`, "in dollars" -> "in yen", "e.g., 25.00 for a $25
  credit" -> "e.g., 2500 for a ¥2,500 credit", "1 point per dollar" -> "per ¥100", MM/DD/YYYY ->
  YYYY/MM/DD, EST -> JST, 'JFK' -> 'KIX', 'USA' -> '日本', a US institution as J-tau's ("SSN" -> "ID
  document number", locale.yaml `institutions`);
- `japanese_in_source(text)`: J-tau's Japanese descriptions (`domains/*/tools.ja.yaml`) for an arm
  with Japanese text and the source's entities (`ja-text`): the same facts the other way
  (（円） -> （ドル）, 50,000円 -> $500, 100円単位 -> 1ドル単位, 「2,500円のクレジットなら 2500」 ->
  「$25のクレジットなら 25」).

Both are notation only, from the maps and the rate (tests/runtime/test_arms_runtime.py checks that no
fact of the other locale is left in any description of any arm).
"""

from __future__ import annotations

import re
from decimal import Decimal

from jtau.maps import EntityMaps
from jtau.swap.money import yen_in

FIGURE = r"\d[\d,]*(?:\.\d+)?"
CURRENCY_WORDS = re.compile(r"\b(?:dollars?|USD)\b")


def _decimal(figure: str) -> Decimal:
    return Decimal(figure.replace(",", ""))


def _plain(amount: Decimal) -> str:
    """A figure as a tool argument takes it: whole when it is (2500), else its decimals (127.43)."""
    return str(int(amount)) if amount == amount.to_integral_value() else f"{amount.normalize():f}"


class Notation:
    def __init__(self, maps: EntityMaps):
        self.rate, self.suffix = maps.locale.currency.rate, maps.locale.currency.suffix
        self.airports = {code: airport.code for code, airport in maps.places.airports.items()}
        self.airports_back = {j: s for s, j in self.airports.items()}
        self.countries = dict(maps.addresses.countries)
        self.countries_back = {j: s for s, j in self.countries.items()}
        self.zones = {label: zone for label, zone in maps.locale.timezones.items() if label.isupper()}
        self.zones_back = {zone: label for label, zone in self.zones.items()}
        self.zone_names = maps.locale.timezone_names
        institutions = maps.locale.institutions
        self.institutions = (re.compile(r"(?<![\w/])(" + "|".join(re.escape(n) for n in sorted(institutions, key=len,
                                                                                              reverse=True))
                                        + r")(?![\w/])"), institutions) if institutions else None

    # --- English text, J-tau's entities ---------------------------------------------------------

    def english_in_jtau(self, text: str | None) -> str | None:
        if not text:
            return text
        lines = []
        for line in text.split("\n"):
            money = CURRENCY_WORDS.search(line) or "$" in line
            line = re.sub(rf"({FIGURE}) for (a )?\$({FIGURE})",
                          lambda m: f"{_plain(_decimal(m[1]) * self.rate)} for {m[2] or ''}{self._yen(m[3])}", line)
            line = re.sub(rf"\$({FIGURE})", lambda m: self._yen(m[1]), line)
            if money:  # an example figure of an amount in dollars: "(e.g., 127.43)"
                line = re.sub(rf"(e\.g\.,? )({FIGURE})(?=\))",
                              lambda m: m[1] + _plain(_decimal(m[2]) * self.rate), line)
            line = self.per_dollar(line)
            line = re.sub(r"\bdollar amount\b", "yen amount", line)
            line = re.sub(r"\bin (?:dollars|USD)\b", "in yen", line)
            line = re.sub(r"\bUSD\b", "JPY", line)
            lines.append(line)
        text = "\n".join(lines).replace("MM/DD/YYYY", "YYYY/MM/DD")
        text = re.sub(r"\b(\d{2})/(\d{2})/(\d{4})\b", r"\3/\1/\2", text)
        text = re.sub(r"\b(" + "|".join(self.zones) + r")\b", lambda m: self.zones[m[1]], text) if self.zones else text
        text = re.sub(r"'([A-Z]{3})'", lambda m: f"'{self.airports.get(m[1], m[1])}'", text)
        if self.institutions:  # "last 4 of SSN" -> "last 4 of ID document number"
            pattern, names = self.institutions
            text = pattern.sub(lambda m: names[m[1]], text)
        return re.sub(r"'([A-Za-z ]+)'", lambda m: f"'{self.countries.get(m[1], m[1])}'", text)

    def per_dollar(self, line: str) -> str:
        """Rates and sums in words: "1 point per dollar" -> "per ¥100", "every thousand dollars" ->
        "every ¥100,000", "the U.S. dollar equivalent" -> "the yen equivalent"."""
        unit = self._yen("1")
        for words, figure in (("ten thousand dollars", "10000"), ("thousand dollars", "1000")):
            line = line.replace(words, self._yen(figure))
        line = re.sub(r"\b(per|each|every|for every|for each)(-| )dollar\b", rf"\1\2{unit}", line)
        line = re.sub(r"\bper-dollar\b", f"per-{unit}", line)
        line = re.sub(r"\b(?:in )?U\.S\. dollars\b", lambda m: "in yen" if m[0].startswith("in ") else "yen", line)
        line = re.sub(r"\bU\.S\. dollar (equivalent|value)\b", r"yen \1", line)
        return re.sub(r"\b(every|eligible|minimum) dollar\b", r"\1 yen", line)

    def _yen(self, figure: str) -> str:
        amount = _decimal(figure) * self.rate
        return yen_in("en", int(amount), self.suffix) if amount == amount.to_integral_value() else f"¥{amount:,}"

    # --- Japanese text, the source's entities ----------------------------------------------------

    def japanese_in_source(self, text: str | None) -> str | None:
        if not text:
            return text
        lines = []
        for line in text.split("\n"):
            money = self.suffix in line
            line = re.sub(rf"({FIGURE}){self.suffix}(\D{{0,12}}?)なら ({FIGURE})",
                          lambda m: f"{self._dollars(m[1])}{m[2]}なら {_plain(_decimal(m[3]) / self.rate)}", line)
            line = re.sub(rf"({FIGURE}){self.suffix}単位",
                          lambda m: f"{_plain(_decimal(m[1]) / self.rate)}ドル単位", line)
            line = re.sub(rf"({FIGURE}){self.suffix}", lambda m: self._dollars(m[1]), line)
            line = re.sub(rf"（{self.suffix}(?=[）。、])", "（ドル", line)
            if money:  # an example figure of an amount in yen: "（円。例：12743）"
                line = re.sub(rf"(例：)({FIGURE})(?=）)", lambda m: m[1] + _plain(_decimal(m[2]) / self.rate), line)
            lines.append(line)
        text = "\n".join(lines).replace("YYYY/MM/DD", "MM/DD/YYYY")
        text = re.sub(r"\b(\d{4})/(\d{2})/(\d{2})\b", r"\2/\3/\1", text)
        if self.zones_back:
            text = re.sub(r"(?<![A-Za-z])(" + "|".join(self.zones_back) + r")(?![A-Za-z])",
                          lambda m: self.zones_back[m[1]], text)
        for label, zone in self.zones.items():  # 日本時間 -> 米国東部時間
            if label in self.zone_names and zone in self.zone_names:
                text = text.replace(self.zone_names[zone], self.zone_names[label])
        text = re.sub(r"'([A-Z]{3})'", lambda m: f"'{self.airports_back.get(m[1], m[1])}'", text)
        return re.sub(r"'([^'\n]+)'", lambda m: f"'{self.countries_back.get(m[1], m[1])}'", text)

    def _dollars(self, figure: str) -> str:
        amount = _decimal(figure) / self.rate
        return f"${amount:,.0f}" if amount == amount.to_integral_value() else f"${amount:,.2f}"

    # --- a tool-description table (domains/*/tools.ja.yaml) ------------------------------------------

    def table_in_source(self, texts):
        """Every string of a descriptions table, `japanese_in_source`."""
        if isinstance(texts, dict):
            return {key: self.table_in_source(value) for key, value in texts.items()}
        if isinstance(texts, list):
            return [self.table_in_source(value) for value in texts]
        return self.japanese_in_source(texts) if isinstance(texts, str) else texts
