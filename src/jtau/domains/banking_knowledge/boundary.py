"""banking_knowledge's locale boundary: tau2's banking tool code (4,760 lines) runs unchanged on
J-tau data by seeing it in the source's form, and what it does comes back in J-tau's form.

Around every tool call (environment.py) the call's arguments (a discoverable
call's JSON-string arguments too) and the db's values are turned into the form tau2's code
parses and computes with, in place: dates MM/DD/YYYY, the clock EST, products by their English
names (the code keys its fee tables by them), and money in dollars (`84,215円` -> `$842.15`,
100000 -> 1000), so every constant the code holds (a $25 early-closure fee, a $500 threshold, a
point a dollar) applies as it does in English.  After the call the db and the tool's text come
back through the very conversions that localize the source (swap/notations.py, the maps): what the
call wrote reads as the localization of what the same call writes on the source, which is what
`jtau verify banking_knowledge` checks task by task.  Names, addresses, emails, phones and
merchants are only compared by the code, never parsed: they stay Japanese throughout.

For another arm (jtau.arms) the boundary converts what the arm localizes: `ja-entities` money,
dates and the clock (its products are the source's English ones), its text in English with yen
as `¥84,215`; `ja-text` only the products, its messages in Japanese with the source's dollars.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

from jtau.arms import Arm
from jtau.maps import EntityMaps
from jtau.rules import MONEY_KINDS, DomainRules
from jtau.runtime.messages import render, table, table_in
from jtau.swap import notations
from jtau.swap.localizer import Localizer, Unmapped
from jtau.swap.money import YEN_SIGN
from jtau.swap.structured import nested_call
from jtau.text.notation import Notation
from jtau.util import jsonpath

# the kinds whose J-tau form differs from the form tau2's code parses, and back (after a call:
# also the descriptions and merchants the code writes, "DEBIT CARD ORDER FEE - ...")
TO_SOURCE = {
    "date_mdy": lambda value, rate: notations.date_source(value),
    "clock_est": lambda value, rate: notations.clock_source(value),
    "money_dollars": notations.money_text_source,
    "money_decimal": notations.money_decimal_source,
    "money": notations.money_source,
}
BACK = {*TO_SOURCE, "bank_description", "merchant"}
DOLLARS = re.compile(r"(-?)\$(\d[\d,]*(?:\.\d+)?)")
# `key: value` in a record the tool printed; an amount keeps its thousands separators ($1,389.98)
FIELD_IN_TEXT = re.compile(r'(?P<head>(?P<q>"?)(?P<key>[a-z_]+)(?P=q):[ \t]*)'
                           r'(?P<value>"(?:[^"\\]|\\.)*"|-?\$?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|[^\s,}\]\n]+)')
MDY_IN_TEXT = re.compile(r"\b(\d{2})/(\d{2})/(\d{4})\b")
EST_IN_TEXT = re.compile(r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?) ?EST\b")


MESSAGES = Path(__file__).with_name("messages.ja.yaml")


def banking_messages():
    """The Japanese of what banking_knowledge's tools write (`messages.ja.yaml` beside this module)."""
    return table(MESSAGES)


class Boundary:
    def __init__(self, maps: EntityMaps, rules: DomainRules, arm: Arm | None = None):
        self.rules, self.loc = rules, Localizer.for_rules(maps, rules, arm)
        self.arm = self.loc.arm
        if self.arm.localizes_entities:
            self.messages = banking_messages()
        else:  # Japanese messages in the source's notation (`ja-text`: $25, MM/DD/YYYY, EST)

            self.messages = table_in(MESSAGES, Notation(maps).japanese_in_source)
        self.rate = maps.locale.currency.rate
        self.descriptions: dict[str, str] = {}  # tau2's English tool descriptions -> the arm's (BankingJa sets them)
        self.cardholders = {p.name.upper(): p.romaji.upper() for p in maps.banking.people.values()}
        self.suffix = maps.locale.currency.suffix
        self.products_en = {ja: en for en, ja in maps.catalog.banking_products.items()}
        self.products_ja = dict(maps.catalog.banking_products)
        names = sorted(self.products_ja, key=len, reverse=True)
        self.product_in_text = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![\w-])") \
            if names else None
        kinds = {k for k in {*TO_SOURCE, *BACK, "bank_product", "cardholder"} if self.loc.localizes(k)}
        self.db_paths = [(p, k) for p, k in rules.db.items() if k in kinds]
        # a field name the tools print records with -> its kind, where every table agrees; "money"
        # where the tables hold an amount in several forms (`amount`: a number of dollars in
        # bank_account_transaction_history, "$450.00" in payment_history): the printed value says which
        by_name: dict[str, set[str]] = {}
        for pattern, kind in self.db_paths:
            by_name.setdefault(pattern.rsplit(".", 1)[-1], set()).add(kind)
        self.text_fields = {name: "money" if kinds <= MONEY_KINDS else kinds.pop()
                            for name, kinds in by_name.items() if len(kinds) == 1 or kinds <= MONEY_KINDS}

    # --- one value -------------------------------------------------------------------------

    def value_to_source(self, kind: str, value):
        if not self.loc.localizes(kind):
            return value
        if kind == "bank_product":
            return self.products_en.get(value, value) if isinstance(value, str) else value
        convert = TO_SOURCE.get(kind)
        try:
            return convert(value, self.rate) if convert and value is not None else value
        except notations.FormatError:
            return value  # not in J-tau's form (the agent wrote it otherwise): as given

    def value_to_ja(self, kind: str, value):
        """A value after a call in J-tau's form: the conversion that localizes the source."""
        if not self.loc.localizes(kind):
            return value
        if kind == "cardholder" and isinstance(value, str):  # the code writes the name upper-cased
            return self.cardholders.get(value, value)
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            return value
        if kind == "bank_product":
            return self.products_ja.get(value, value) if isinstance(value, str) else value
        if kind == "money" and isinstance(value, float):
            value = round(value, 2)  # float arithmetic leaves 55.56000000000001: amounts have cents
        try:
            return self.loc.convert(kind, value) if kind in BACK else value
        except Unmapped:
            return value  # not in the source's form (a value the call did not touch)

    # --- arguments ---------------------------------------------------------------------------

    def arguments_to_source(self, tool: str, arguments: dict) -> dict:
        """A call's arguments in the form the tool code parses (a new dict)."""
        out = json.loads(json.dumps(arguments))
        self._convert(out, self.rules.tools.get(tool, {}), self.value_to_source)
        found = nested_call({"name": tool, "arguments": out}, self.rules)
        if found is not None:
            name, inner = found
            self._convert(inner, self.rules.tools.get(name, {}), self.value_to_source)
            out[self.rules.tasks.nested_calls[tool]["arguments"]] = json.dumps(inner, ensure_ascii=False)
        return out

    @staticmethod
    def _convert(data, table: dict[str, str], convert) -> None:
        for pattern, kind in table.items():
            for _, container, key in list(jsonpath.find(data, pattern)):
                container[key] = convert(kind, container[key])

    # --- the db ------------------------------------------------------------------------------

    def db_to_source(self, db) -> None:
        self._convert_db(db, self.value_to_source)

    def db_to_ja(self, db) -> None:
        self._convert_db(db, self.value_to_ja)

    def _convert_db(self, db, convert) -> None:
        """tau2's TransactionalDB, table by table (its records are dicts, converted in place)."""
        view = {name: {"data": table.data} for name in type(db).model_fields
                if hasattr(table := getattr(db, name), "data")}
        for pattern, kind in self.db_paths:
            for _, container, key in list(jsonpath.find(view, pattern)):
                container[key] = convert(kind, container[key])

    # --- text --------------------------------------------------------------------------------

    def text_to_ja(self, text: str) -> str:
        """What a tool returned, in J-tau's form: its message in Japanese (the messages table,
        whole or piece by piece), then yen, YYYY/MM/DD, JST and Japanese product names."""
        if not isinstance(text, str):
            return text
        if self.arm.japanese_text:
            text = self.translate(text)
        text = FIELD_IN_TEXT.sub(self._field_in_text, text)
        if self.arm.localizes_entities:
            text = DOLLARS.sub(lambda m: f"{m[1]}{self._yen(m[2])}", text)
            text = MDY_IN_TEXT.sub(lambda m: f"{m[3]}/{m[1]}/{m[2]}", text)
            text = EST_IN_TEXT.sub(lambda m: f"{m[1]} JST", text)
        if self.product_in_text is not None and self.arm.japanese_text:
            text = self.product_in_text.sub(lambda m: self.products_ja[m[1]], text)
        return text

    def translate(self, text: str) -> str:
        """The message table's Japanese of `text` (messages.render): a field that holds a known
        description (a customer's tool as tau2 describes it), a message, or a tool error
        (Python's "... missing 1 required positional argument: 'x'": tool_errors)."""
        def field(value: str) -> str | None:
            return self.descriptions.get(value) or table("tool_errors").translate(value)

        return render(self.messages, text, amount=self._yen, field=field)

    def _field_in_text(self, match: re.Match) -> str:
        """`current_holdings: 127450.00`, `"amount": -50.0` or `current_balance: $1,389.98` in a
        record the tool printed: the value as the db holds it in J-tau (the field's kind, from the
        rules; an amount by its form: `$...` a dollar text, else a number of dollars), an amount in
        English text with the yen sign (`¥138,998`)."""
        kind = self.text_fields.get(match["key"])
        if kind is None:
            return match[0]
        raw = match["value"]
        quoted = raw.startswith('"') and raw.endswith('"') and len(raw) > 1
        value = raw[1:-1] if quoted else raw
        if kind in MONEY_KINDS:
            if "$" in value:
                kind = "money_dollars"
            elif quoted:
                return match[0]
            else:
                try:
                    value = float(value.replace(",", ""))
                except ValueError:
                    return match[0]
        converted = self.value_to_ja(kind, value)
        if converted == value:
            return match[0]
        shown = json.dumps(converted, ensure_ascii=False) if quoted else str(converted)
        if kind in MONEY_KINDS and not self.arm.japanese_text and (yen := notations.YEN.match(shown)):
            shown = f"{yen[1]}{YEN_SIGN}{yen[2]}"
        return f"{match['head']}{shown}"

    def _yen(self, number: str) -> str:
        """`842.15` (dollars in the tool's text) -> `84,215円` (English text: `¥84,215`); what is no
        number stays as written; an arm with the source's money keeps the dollars (`$842.15`)."""
        if not self.arm.localizes_entities:
            return f"${number}"
        try:
            amount = Decimal(number.replace(",", "")) * self.rate
        except ArithmeticError:
            return number
        whole = amount.to_integral_value()
        figure = f"{int(whole):,}" if amount == whole else f"{amount:,.2f}"
        return f"{figure}{self.suffix}" if self.arm.japanese_text else f"{YEN_SIGN}{figure}"

