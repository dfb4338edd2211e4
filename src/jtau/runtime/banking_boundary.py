"""banking_knowledge's locale boundary: tau2's banking tool code (4,760 lines) runs unchanged on
J-tau data by seeing it in the form it parses, and what it returns is put back in J-tau's form.

Around every tool call (runtime/banking_knowledge.py):
1. **in**: the call's arguments (and a discoverable call's JSON-string arguments) in the form the
   tool code parses: J-tau's `1992/03/15` -> `03/15/1992`, a product name -> its English name
   (the code keys fees and rules by product name), `... JST` -> `... EST`; yen amounts stay
   numbers (the db holds yen, so the code computes in yen);
2. **db view**: the same for the db's values (`101,480円` -> `$101480.00`, which `_parse_balance`
   reads as 101480), in place;
3. **out**: the db back in J-tau's form, new records included, and the tool's text: `$` amounts as
   yen (`$84,215.00` -> `84,215円`), MM/DD/YYYY dates, EST times, English product names.

Every conversion is the one the pipeline localizes the data with (swap/banking.py, the maps),
read in both directions, so a db that went through a call is what localizing the source db
after the same call gives (`jtau verify banking_knowledge` proves it task by task).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation

from jtau import jsonpath
from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.swap import banking
from jtau.swap.localizer import Localizer, Unmapped
from jtau.swap.structured import nested_call

# the kinds whose J-tau form differs from the form tau2's code parses (others: names, addresses,
# emails, phones, merchants are only compared, never parsed, and stay Japanese)
TO_SOURCE = {
    "date_mdy": banking.date_source,
    "clock_est": banking.clock_source,
    "money_dollars": banking.money_text_source,
}
# kinds converted back after a call (the code writes them in its own form): its dates, times,
# "$" amounts, decimal balances, and the descriptions it composes ("DEBIT CARD ORDER FEE - ...")
BACK = {"date_mdy", "clock_est", "money_dollars", "money_decimal", "bank_description"}
DOLLARS = re.compile(r"(-?)\$(\d[\d,]*(?:\.\d+)?)")
MDY_IN_TEXT = re.compile(r"\b(\d{2})/(\d{2})/(\d{4})\b")
EST_IN_TEXT = re.compile(r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?) ?EST\b")


class Boundary:
    def __init__(self, maps: EntityMaps, rules: DomainRules):
        self.rules, self.loc = rules, Localizer.for_rules(maps, rules)
        self.yen = Localizer.for_rules(maps, rules)  # J-tau's forms from values already in yen
        self.yen.rate = Decimal(1)
        self.cardholders = {p.name.upper(): p.romaji.upper() for p in maps.banking.people.values()}
        self.suffix = maps.locale.currency.suffix
        self.products_en = {ja: en for en, ja in maps.catalog.banking_products.items()}
        self.products_ja = dict(maps.catalog.banking_products)
        names = sorted(self.products_ja, key=len, reverse=True)
        self.product_in_text = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![\w-])") \
            if names else None
        kinds = {*TO_SOURCE, *BACK, "bank_product", "cardholder"}
        self.db_paths = [(p, k) for p, k in rules.db.items() if k in kinds]

    # --- one value -------------------------------------------------------------------------

    def value_to_source(self, kind: str, value):
        if not isinstance(value, str):
            return value
        if kind == "bank_product":
            return self.products_en.get(value, value)
        convert = TO_SOURCE.get(kind)
        try:
            return convert(value) if convert else value
        except banking.FormatError:
            return value  # not in J-tau's form (the agent wrote it otherwise): as given

    def value_to_ja(self, kind: str, value):
        """A db value after a call in J-tau's form: the pipeline's conversion, at a rate of 1
        (the code computed in yen), so a value the call wrote and one it left come out alike."""
        if kind == "cardholder" and isinstance(value, str):  # the code writes the name upper-cased
            return self.cardholders.get(value, value)
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            return value
        if kind == "bank_product":
            return self.products_ja.get(value, value)
        try:
            return self.yen.convert(kind, value) if kind in BACK else value
        except Unmapped:
            return value  # already in J-tau's form (a value the call did not write)

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
        """What a tool returned, in J-tau's form: yen, YYYY/MM/DD, JST, Japanese product names."""
        if not isinstance(text, str):
            return text
        text = DOLLARS.sub(lambda m: f"{m[1]}{self._yen(m[2])}", text)
        text = MDY_IN_TEXT.sub(lambda m: f"{m[3]}/{m[1]}/{m[2]}", text)
        text = EST_IN_TEXT.sub(lambda m: f"{m[1]} JST", text)
        if self.product_in_text is not None:
            text = self.product_in_text.sub(lambda m: self.products_ja[m[1]], text)
        return text

    def _yen(self, number: str) -> str:
        """`84,215.00` (a yen amount the tool code wrote as dollars) -> `84,215円`."""
        amount = float(number.replace(",", ""))
        whole = round(amount)
        return f"{whole:,}{self.suffix}" if abs(amount - whole) < 1e-6 else f"{amount:,.2f}{self.suffix}"

