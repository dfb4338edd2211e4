"""What the model is asked: the style of each register (JA_STYLE.md), the placeholder
legend, the glossary hints, and the JSON answer format.  PROMPT_VERSION is stored with
every machine entry; change it when the prompt changes meaningfully."""

from __future__ import annotations

import json

PROMPT_VERSION = "ja-2026-12-v2"

REGISTERS = {
    "policy": "Polite written Japanese (です・ます調), the voice of an internal operations manual "
              "addressed to the customer-service agent.",
    "user": "Instructions to a simulated customer, in the second person, です・ます調: "
            "'You are X' becomes 「あなたはXです。」. Keep every condition, negation, number and "
            "ordering exactly (a prohibition stays a prohibition).",
    "assertion": "Neutral descriptive style (「エージェントは…を確認する。」); one sentence stays one sentence.",
}

PLACEHOLDERS = {
    "PERSON": "a person's full name (family name first)",
    "GIVEN_NAME": "a person's given name", "FAMILY_NAME": "a person's family name",
    "USER_ID": "a user id", "EMAIL": "an email address", "AIRPORT": "an airport with its code",
    "CITY": "a city", "PREFECTURE": "a prefecture", "REGION": "a region of Japan",
    "MONEY": "an amount of money, already written in yen (e.g. 12,300円)",
    "DATE": "a date, already written in Japanese (e.g. 5月23日)", "TIMEZONE": "a time-zone label",
    "TERM": "a glossary term, already in Japanese",
    "CURRENCY": "the currency's name, already in Japanese (円), in an idiom such as 「1{CURRENCY_1}だって」",
    "RESERVATION_ID": "a reservation id", "FLIGHT_NUMBER": "a flight number", "PAYMENT_ID": "a payment method id",
}


def system_prompt(kind: str) -> str:
    legend = "\n".join(f"- {{{name}_n}}: {meaning}" for name, meaning in PLACEHOLDERS.items())
    return f"""You localize an English customer-service benchmark into natural Japanese.

Style: {REGISTERS.get(kind, REGISTERS["assertion"])}
Do not over-honour (no stacked keigo). Half-width digits.

Each segment contains placeholders in braces, such as {{PERSON_1}} or {{MONEY_2}}. They stand for
values that are filled in later, already in Japanese:
{legend}
Keep every placeholder exactly once, unchanged, and invent none. Keep Markdown markup
(**bold**, `code`) around the same words. Ids, codes and snake_case literals stay as written.
Use the Japanese renderings given in "terms" for those English terms.
Where the text names a value that the agent passes to a tool (an enum literal such as
basic_economy, round_trip, gift_card), you may add the literal in backticks after the
Japanese term: **{{TERM_1}}**（`basic_economy`）.

Answer with one JSON object: {{"translations": [{{"id": "<id>", "text": "<Japanese>"}}, ...]}},
one item per segment, nothing else."""


def user_message(segments: list[dict]) -> str:
    """segments: [{"id", "text", "terms"}]"""
    return json.dumps({"segments": segments}, ensure_ascii=False)
