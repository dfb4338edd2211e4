"""Diagnostics of a conversation, counted from what tau2 recorded (no model involved).

Read from the messages at import (`conversation_diagnostics`, kept in the trace):
- `turns`: messages of the agent and the customer (a tool call is a turn; tool results are not);
- `first_turn_stop`: the customer's first message ends the conversation (###STOP###,
  ###TRANSFER###, ###OUT-OF-SCOPE###), so the agent never got to call a tool (upstream's
  measure of a simulator that stops at once);
- `agent_messages` / `agent_japanese` and `user_messages` / `user_japanese`: messages with text,
  and those written in Japanese.  A message is Japanese when its Japanese characters (kana,
  kanji) outnumber the letters of its Latin words; ids, codes and emails (tokens with a digit,
  `_`, `@`, or in capitals: `mei_suzuki_7075`, `KIX`, `HXDUBJ`) are not words.  Control tokens
  alone are no text.
- `judge_verdicts` / `judge_expected` (tau2-bench 1.0.1, a task graded by NL assertions): how
  many verdicts the judge gave and how many assertions the task has; a difference, or an empty
  verdict, flags the task (tau2-bench 1.0.1 scores such a reply as a pass).

Counted from the actions with the maps and rules, in the analysis (`action_diagnostics`):
name-order errors (a lookup with a person's given and family names swapped) and
parameter-language errors (an enum literal or id passed in Japanese: ビジネス for `business`).
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"###(?:STOP|TRANSFER|OUT-OF-SCOPE)###")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f々〆ヵヶ]")
LATIN_WORD = re.compile(r"[A-Za-z0-9_.@'\-]+")
NOT_A_WORD = re.compile(r"[0-9_@]|^[A-Z]{2,}$")


def is_japanese(text: str) -> bool | None:
    """Whether `text` is written in Japanese; None when it holds no letters at all."""
    japanese = len(JAPANESE.findall(text))
    latin = sum(sum(c.isalpha() for c in word) for word in LATIN_WORD.findall(text) if not NOT_A_WORD.search(word))
    if not japanese and not latin:
        return None
    return japanese > latin


def conversation_diagnostics(messages: list) -> dict:
    counts = {"turns": 0, "first_turn_stop": False, "agent_messages": 0, "agent_japanese": 0,
              "user_messages": 0, "user_japanese": 0}
    spoke = False
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role not in ("assistant", "user"):
            continue
        content = message.get("content")
        if index > 0 or role == "user":  # the orchestrator's fixed greeting is no turn of the agent's
            counts["turns"] += 1
        if not isinstance(content, str):
            spoke = spoke or role == "user"
            continue
        if role == "user" and not spoke:
            counts["first_turn_stop"] = bool(CONTROL.search(content))
            spoke = True
        if index == 0 and role == "assistant":
            continue
        language = is_japanese(CONTROL.sub("", content))
        if language is None:
            continue
        who = "agent" if role == "assistant" else "user"
        counts[f"{who}_messages"] += 1
        counts[f"{who}_japanese"] += int(language)
    return counts


def judge_diagnostics(reward_info, expected: int | None) -> dict:
    """The NL-assertion judge's verdicts against the task's assertions (`expected`: None when the
    task is not graded by them)."""
    if not expected:
        return {}
    verdicts = reward_info.get("nl_assertions") if isinstance(reward_info, dict) else None
    verdicts = verdicts if isinstance(verdicts, list) else []
    empty = any(not isinstance(v, dict) or v.get("met") is None and v.get("metExpectation") is None for v in verdicts)
    return {"judge_verdicts": len(verdicts), "judge_expected": expected, "judge_empty": empty}


# argument kinds whose values are never Japanese (ids, codes, literals, amounts): a Japanese value
# there is a parameter in the wrong language; an argument without a kind is a literal or an id
LITERAL_KINDS = frozenset({None, "frozen", "user_id", "email", "airport", "zip", "phone", "money", "money_expression",
                           "date_mdy", "clock_est", "bank_email", "bank_phone", "money_dollars", "money_decimal"})
NAME_PARTS = ("given_name", "family_name")
WHOLE_NAMES = frozenset({"full_name", "bank_person"})


class ActionChecks:
    """Name-order and parameter-language errors in an agent's calls, by the domain rules' argument
    kinds and the maps' names (in both entity spaces: the source's and J-tau's)."""

    def __init__(self, maps):
        people = maps.people if maps else None
        self.given = set(people.given_names) | {n.kanji for n in people.given_names.values()} if people else set()
        self.family = set(people.family_names) | {n.kanji for n in people.family_names.values()} if people else set()
        banking = maps.banking.people if maps else {}
        self.bank_people = set(banking) | {p.name for p in banking.values()}

    def swapped(self, kind: str, value, args: dict, table: dict) -> bool:
        if kind == "given_name":
            family_arg = next((k for k, v in table.items() if v == "family_name"), None)
            other = args.get(family_arg) if family_arg else None
            return (isinstance(value, str) and isinstance(other, str) and value in self.family
                    and other in self.given and not (value in self.given and other in self.family))
        if kind in WHOLE_NAMES and isinstance(value, str):
            parts = value.split()
            if len(parts) != 2 or value in self.bank_people:
                return False
            if " ".join(reversed(parts)) in self.bank_people:
                return True
            first, second = parts
            japanese = bool(JAPANESE.search(value))
            # J-tau writes family name first (高橋 健太), the source given name first (John Smith)
            expected = (first in self.family and second in self.given) if japanese else \
                (first in self.given and second in self.family)
            reversed_ok = (second in self.family and first in self.given) if japanese else \
                (second in self.given and first in self.family)
            return reversed_ok and not expected
        return False

    def count(self, rules, steps) -> dict:
        """{name_order_errors, parameter_language_errors} of a trace's steps (canonical.Step)."""
        names = wrong_language = 0
        for step in steps:
            table = rules.tools.get(step.name, {}) if rules else {}
            for key, value in (step.args or {}).items():
                kind = table.get(key)
                if kind in LITERAL_KINDS and isinstance(value, str) and JAPANESE.search(value):
                    wrong_language += 1
                if kind in ("given_name", *WHOLE_NAMES) and self.swapped(kind, value, step.args, table):
                    names += 1
        return {"name_order_errors": names, "parameter_language_errors": wrong_language}
