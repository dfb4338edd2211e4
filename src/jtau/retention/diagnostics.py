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
  verdict, flags the task (upstream issue #554 scores such a reply as a pass).

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
