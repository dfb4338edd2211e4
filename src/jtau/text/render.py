"""Fill a template with the localized values of its entities, written the Japanese way:
family name first (`鈴木 芽衣`), `12,300円`, `5月23日`, `関西国際空港（KIX）`.

For another arm (jtau.arms) an entity reads by its locale and the text's language
(docs/ARMS.md): the source's entities keep the surface the source gives them (`Mei Brown`, `JFK`,
and amounts in dollars, `$348`), J-tau's are J-tau's values; notation follows the text language
(`5月23日` / `May 23`, `34,800円` / `¥34,800`, glossary terms in Japanese or as written).
"""

from __future__ import annotations

import re

from jtau.arms import JTAU_ARM
from jtau.glossary import EMPTY, Glossary
from jtau.swap.localizer import Localizer, Unmapped
from jtau.swap.money import YEN_SIGN, MoneyError, format_yen, to_decimal
from jtau.text.recognize import MONTHS
from jtau.text.template import PLACEHOLDER, Entity, Template

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
MONTH_DAY = re.compile(r"^(\w+)\s+(\d{1,2})")
MONEY_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
THOUSANDS = re.compile(r"\d[kK](?!\w)")  # "$100k"
# banking_knowledge's text entities -> the kind that converts them (swap/localizer.py)
BANK_KINDS = {"BANK_PERSON": "bank_person", "BANK_ADDRESS": "bank_address", "BANK_PHONE": "bank_phone",
              "MERCHANT": "merchant", "BANK_PRODUCT": "bank_product", "BANK_DATE": "date_mdy"}
# text entities that are words of the text's language, not facts of a locale (jtau.arms)
LANGUAGE_ENTITIES = frozenset({"TERM", "DATE", "BANK_PRODUCT"})
# the kinds `Renderer.entity` converts; any other placeholder is a frozen token, kept as written
TEXT_FORM_KINDS = frozenset({"REGION", "COUNTRY", "BANK_WORD"})  # named by places.yaml's text_forms
ENTITY_KINDS = frozenset({"PERSON", "GIVEN_NAME", "FAMILY_NAME", "USER_ID", "EMAIL", "AIRPORT", "CITY",
                          "PREFECTURE", "REGION", "ZIP", "STREET", "PHONE", "COUNTRY", "STREET_ADDRESS", "SUITE",
                          "TERM", "TIMEZONE", "MONEY", "NUMBER", "DATE", "BANK_WORD", "CURRENCY", "AMOUNT",
                          "AMOUNT_NAME", *BANK_KINDS})
# a source amount's words ("500 dollars", "200 bucks", "100 USD") that the dollar sign says
DOLLAR_WORDS = re.compile(r"\s*(?:dollars?|bucks|USD)\b")


class Renderer:
    def __init__(self, loc: Localizer, glossary: Glossary = EMPTY, city_as_address: bool = False):
        self.loc, self.glossary = loc, glossary
        self.maps = loc.maps
        self.city_as_address = city_as_address  # a city in text is the db's address city (retail)
        self.arm = loc.arm  # the arm the localizer localizes for

    def entity(self, entity: Entity) -> str:
        """The text of one entity occurrence (J-tau's: Japanese)."""
        if self.arm.name != JTAU_ARM:
            written = self.in_arm(entity)
            if written is not None:
                return written
        kind, value = entity.kind, entity.value
        places = self.maps.places
        if kind == "PERSON":
            return self.loc.person(value[0], value[1])
        if kind == "GIVEN_NAME":
            return self.loc.convert("given_name", value[0])
        if kind == "FAMILY_NAME":
            return self.loc.convert("family_name", value[0])
        if kind == "USER_ID":
            return self.loc.convert("user_id", value[0])
        if kind == "EMAIL":
            return self.loc.convert("bank_email" if value[0] in self.maps.banking.emails else "email", value[0])
        if kind == "AIRPORT":
            airport = places.airports[value[0]]
            return f"{airport.name}（{airport.code}）"
        if kind == "CITY":
            city = places.cities[value[0]]
            return city.address_city if self.city_as_address and city.address_city else city.name
        if kind == "PREFECTURE":
            return places.states[value[0]].prefecture
        if kind == "REGION":
            return places.regions[value[0]].name
        if kind == "ZIP":
            return self.loc.convert("zip", value[0])
        if kind == "STREET":
            return self.maps.addresses.streets[value[0]]
        if kind == "PHONE":
            return self.loc.convert("phone", value[0])
        if kind == "COUNTRY":
            return self.maps.addresses.countries[value[0]]
        if kind == "STREET_ADDRESS":
            return self.loc.convert("address1", entity.surface)
        if kind == "SUITE":
            return self.loc.convert("address2", entity.surface)
        if kind == "TERM":
            return self.glossary.terms[value[0]].ja
        if kind == "TIMEZONE":
            return self.maps.locale.timezones[value[0]]
        if kind == "MONEY":  # (the value is the figure: "twenty bucks" is `$20`)
            return self.money(value[0])
        if kind == "CURRENCY":
            return self.maps.locale.currency.suffix
        if kind == "AMOUNT_NAME":  # "$X" -> X円
            return entity.surface[1:] + self.maps.locale.currency.suffix
        if kind == "AMOUNT":  # a bare figure as a tool takes it: 55000 -> 5500000
            amount = to_decimal(value[0]) * self.maps.locale.currency.rate
            return str(int(amount)) if amount == amount.to_integral_value() else f"{amount.normalize():f}"
        if kind == "NUMBER":  # a "$N" of the source that is no money (rules `not_money`)
            return value[0]
        if kind == "DATE":
            return self.date(entity.surface)
        if kind == "BANK_WORD":
            return self.maps.banking.text_words[value[0]]
        if kind in BANK_KINDS:
            return self.loc.convert(BANK_KINDS[kind], value[0])
        return entity.surface  # frozen tokens: ids, flight numbers

    def in_arm(self, entity: Entity) -> str | None:
        """How an entity reads in this arm where it reads otherwise than in `ja` (None: as in `ja`)."""
        kind, arm = entity.kind, self.arm
        if kind == "NUMBER" or kind not in ENTITY_KINDS:
            return None  # frozen tokens and non-money figures read as in every arm
        if kind in LANGUAGE_ENTITIES:
            return None if arm.japanese_text else entity.surface
        if kind == "MONEY":
            if not arm.localizes_entities:
                return self.dollars(entity.value[0]) if arm.japanese_text else entity.surface
            return None if arm.japanese_text else self.money(entity.value[0], "en")
        if kind == "AMOUNT":
            return None if arm.localizes_entities else entity.surface
        if kind == "TIMEZONE" and arm.japanese_text and not arm.localizes_entities:
            return entity.value[0].upper()  # "11am est" -> 11:00（EST）, as `ja` writes JST
        if kind == "AMOUNT_NAME":  # "$X" in the source's money, "¥X" in J-tau's English
            if not arm.localizes_entities:
                return entity.surface
            return None if arm.japanese_text else YEN_SIGN + entity.surface[1:]
        if kind == "CURRENCY":  # "every dollar": ドル in Japanese, yen in English with J-tau's money
            currency = self.maps.locale.currency
            if arm.localizes_entities == arm.japanese_text:
                return None if arm.japanese_text else entity.surface
            return currency.source_name_ja if arm.japanese_text else currency.name_en
        form = self.maps.places.text_forms.get(entity.value[0]) if kind in TEXT_FORM_KINDS else None
        if form is not None:  # a country in the text's language: アメリカ in Japanese, Japan in English
            written = form.ja if arm.japanese_text and not arm.localizes_entities else \
                form.en if arm.localizes_entities and not arm.japanese_text else None
            if written is not None:
                return written
        if not arm.localizes_entities:
            return entity.surface
        if kind == "AIRPORT" and not arm.japanese_text:  # `KIX`, `KMI (宮崎)`: as the source names airports
            airport = self.maps.places.airports[entity.value[0]]
            city = f" ({self.maps.places.cities[airport.city].name})" if "(" in entity.surface else ""
            return airport.code + city
        return None

    @staticmethod
    def dollars(surface: str) -> str:
        """A source amount in Japanese text: the source's figures with the dollar sign (`$348`,
        `$1,628`; "200 bucks" -> `$200`; `$3-4k` -> `$3,000-4,000`, no English `k`): the db and the
        tools hold dollars so written."""
        if THOUSANDS.search(surface):
            return "$" + "-".join(f"{(to_decimal(n) * 1000).normalize():,f}" for n in MONEY_NUMBER.findall(surface))
        if surface.lstrip("-").startswith("$"):
            return DOLLAR_WORDS.sub("", surface)
        return "$" + DOLLAR_WORDS.sub("", surface)

    def money(self, surface: str, language: str = "ja") -> str:
        """`$14.50` -> `1,450円`; `$100k` -> `10,000,000円`; a range `$3-4k` -> `300,000〜400,000円`;
        in English text `¥1,450`, `¥300,000-400,000`."""
        scale = 1000 if THOUSANDS.search(surface) else 1
        suffix = self.maps.locale.currency.suffix
        amounts = []
        for number in MONEY_NUMBER.findall(surface):
            try:
                amount = to_decimal(number) * scale
            except MoneyError as exc:
                raise Unmapped("money", surface, str(exc)) from None
            yen = amount * self.maps.locale.currency.rate
            if yen != yen.to_integral_value():  # a rate below a cent ("1 point = $0.0125"): exact, with decimals
                amounts.append(f"{yen.normalize():f}")
            else:
                amounts.append(format_yen(self.loc.convert("money", str(amount)), ""))
        if language != "ja":
            return YEN_SIGN + "-".join(amounts)
        return "〜".join(amounts) + suffix

    @staticmethod
    def date(surface: str) -> str:
        if match := ISO_DATE.match(surface):
            return f"{int(match[1])}年{int(match[2])}月{int(match[3])}日"
        match = MONTH_DAY.match(surface)
        assert match is not None  # a DATE the recognizer found is ISO or "Month day"
        return f"{MONTHS.index(match[1]) + 1}月{int(match[2])}日"

    def drops_article(self, target: str, start: int, last: int, entity: Entity, value: str) -> bool:
        """Whether the "the " before a placeholder goes: English text names a country of the other
        locale by its own name ("at home in the United States" -> "at home in Japan")."""
        return (self.arm.name != JTAU_ARM and not self.arm.japanese_text and entity.kind in TEXT_FORM_KINDS
                and value != entity.surface and not value.startswith("the ") and start - 4 >= last
                and target[start - 4:start] == "the ")

    def render(self, target: str, template: Template) -> str:
        """Replace each placeholder of `target` (a translation of `template`, or the
        template itself) with its entity's text."""
        values = {name: self.entity(entity) for name, entity in template.entities}
        if self.arm.japanese_text and not self.arm.localizes_entities and target is not template.text:
            target = us_order(target, template.text)
        out, last, previous = [], 0, ""
        for match in PLACEHOLDER.finditer(target):
            name = match[1]
            if name not in values:
                raise Unmapped("placeholder", name, "not in the template")
            value = values[name]
            # a Japanese template glues an address's parts ({PREFECTURE_1}{CITY_1}); the source's
            # Latin values stay apart in another arm ("WA Seattle", not "WASeattle")
            if self.arm.name != JTAU_ARM and match.start() == last and last and _latin(previous[-1:]) \
                    and _latin(value[:1]):
                value = " " + value
            cut = 4 if self.drops_article(target, match.start(), last, dict(template.entities)[name], value) else 0
            out += [target[last:match.start() - cut], value]
            last, previous = match.end(), value
        out.append(target[last:])
        return "".join(out)


ADDRESS_PART = r"\{(?:ZIP|PREFECTURE|CITY|STREET_ADDRESS|STREET|SUITE)_\d+\}"
# a Japanese address of two parts or more, and the 市 a template may add after a city ({CITY_1}市在住)
JAPANESE_ADDRESS = re.compile(rf"〒?\s?(?:{ADDRESS_PART}[ 　、,]*){{2,}}(?<![ 　、,])[市区町村]?")


def us_order(target: str, english: str) -> str:
    """A US address in Japanese text as the source writes it: its parts in the English template's
    order, with its commas, no 〒 (「〒{ZIP_1} {PREFECTURE_1}{CITY_1}{STREET_ADDRESS_1}」 ->
    「{STREET_ADDRESS_1}, {CITY_1}, {PREFECTURE_1} {ZIP_1}」: the address1/address2 boundary the
    tools compare stays visible)."""
    def reorder(match: re.Match) -> str:
        parts = PLACEHOLDER.findall(match[0])  # (a 市 after it goes with the Japanese order)
        spans = [english.find("{" + part + "}") for part in parts]
        if -1 in spans:
            return match[0]
        start = min(spans)
        end = max(span + len(part) + 2 for span, part in zip(spans, parts))
        run = english[start:end]
        return run if sorted(PLACEHOLDER.findall(run)) == sorted(parts) else match[0]

    return JAPANESE_ADDRESS.sub(reorder, target)


def _latin(char: str) -> bool:
    return char.isascii() and char.isalnum()
