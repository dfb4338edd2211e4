"""J-tau's arms: what a localization changes, one factor at a time.

J-tau changes the language of every text and the locale of every entity (people, places,
phones, dates, money) at once.  An experiment that finds an agent worse in Japanese needs to
know which of the two did it, so every J-tau domain comes in four arms, a 2x2 of text language
x entity locale, each a tau2 domain named `<tau2 domain>_<arm>`:

    arm           text      entities   tau2 domain (airline)
    en            English   source     airline_en           the source with J-tau's task repairs
    ja-entities   English   J-tau      airline_ja-entities
    ja-text       Japanese  source     airline_ja-text
    ja            Japanese  J-tau      airline_ja           J-tau itself

The arm is also the "language" of an experiment's traces (retention compares `en` with each of
the others).  An arm's entities decide the space its tool arguments live in: `ja` and
`ja-entities` call tools with J-tau's user ids and yen, `en` and `ja-text` with the source's.

What follows which factor (docs/ARMS.md):
- the text language: every free text (through the memory), tool descriptions and messages, the
  first agent message, the knowledge base and its search, and the catalog's words (retail's
  products and options, telecom's plans and devices, banking's products: `LANGUAGE_KINDS`),
  because the memory's Japanese names them literally (they are glossary hints, not placeholders);
- the entity locale: people, ids and emails built from names, places, addresses, phones, money
  (and the rate, tool fees, rounding), time zones, banking's date format and its whole-value
  descriptions and merchants: the db and every tool argument.

Only `ja` is committed (data/domains/); the other arms are built on first use into a cache
(jtau.arm_cache).
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE, JTAU = "source", "ja"


@dataclass(frozen=True)
class Arm:
    name: str
    text: str       # the language of every text: "en" or "ja"
    entities: str   # SOURCE (the source's people, places and dollars) or JTAU

    @property
    def localizes_entities(self) -> bool:
        return self.entities == JTAU

    @property
    def japanese_text(self) -> bool:
        return self.text == "ja"


ARMS = {arm.name: arm for arm in (
    Arm("en", "en", SOURCE),
    Arm("ja-entities", "en", JTAU),
    Arm("ja-text", "ja", SOURCE),
    Arm("ja", "ja", JTAU),
)}
SOURCE_ARM = "en"
JTAU_ARM = "ja"

# Entity kinds (swap/localizer.py) that are words of the text's language rather than facts of a
# locale: the catalog.  They follow the arm's text language; every other kind its entity locale.
LANGUAGE_KINDS = frozenset({"product_name", "option_name", "option_value", "option_wording", "plan_name",
                            "device_model", "bank_product"})


def arm(name: str) -> Arm:
    """The arm called `name`; a ValueError naming the arms otherwise (the command line's
    cli/common.arms_named says it as one error line)."""
    if name not in ARMS:
        raise unknown_arm(name)
    return ARMS[name]


def unknown_arm(name: str) -> ValueError:
    """The error of a name that is no arm, naming the arms."""
    return ValueError(f"unknown arm {name!r}; arms: {', '.join(ARMS)}")


def english_twin(of: Arm) -> Arm:
    """The arm with English text and the same entities (`ja` -> `ja-entities`, `ja-text` -> `en`):
    whose task instructions an English-prompted customer reads (runtime/user.py)."""
    return next(a for a in ARMS.values() if a.text == "en" and a.entities == of.entities)


def split_domain(name: str) -> tuple[str, Arm | None]:
    """`airline_ja-text` -> ("airline", the ja-text arm); a name that is no arm (tau2's own
    `airline`, `banking_knowledge`) -> (name, None)."""
    base, _, suffix = name.rpartition("_")
    if base and suffix in ARMS:
        return base, ARMS[suffix]
    return name, None


def arm_domain(base: str, arm: str) -> str:
    """The tau2 domain name of `arm` of tau2 domain `base`: ("airline", "ja-text") -> airline_ja-text."""
    if arm not in ARMS:
        raise unknown_arm(arm)
    return f"{base}_{arm}"


# The version of the directive the English-prompted customer (user_simulator_ja-en-prompt) reads
# (runtime/user.py writes it; a report's signature names it without importing tau2).
EN_PROMPT_VERSION = "2"
