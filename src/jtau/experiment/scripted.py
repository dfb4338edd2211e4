"""Scripted models: a chat-completions server on 127.0.0.1 that plays the agent, the customer and
the NL-assertion judge of any J-tau domain, so that an experiment's numbers can be calibrated
before a model is measured (no model is involved).

Models (what `--agent-llm`, `--user-llm` and the judge name, with the `openai/` prefix litellm
needs): `jtau-golden` the agent, `jtau-customer` the customer, `jtau-judge` a judge that finds
every assertion met (`jtau-judge-unmet`: none; `jtau-judge-empty`: a reply without verdicts,
which tau2-bench 1.0.1 scores as a pass).

- The customer finds its task from the scenario tau2 wrote into its system prompt (of the tasks
  whose scenario texts all occur in it, the one with the most text), opens with a marker naming
  the task and the conversation (`[task 7 · c12]`), makes the customer's own golden calls when
  they come next (telecom's phone, banking's discoverable user tools), and ends with ###STOP###
  when no call is left.  It speaks the domain's text language (jtau.arms); the English-prompted
  customer (its prompt carries jtau.runtime.user's directive) speaks Japanese.
- The agent plays the task's golden actions, one tool call a turn, in the task's order (the
  turn goes to the customer when the customer's call is next), then says every
  `communicate_info` value in one message.  Each conversation has its own state, so trials and
  domains run concurrently.
- Deviations planted on chosen (arm, task) pairs turn the perfect agent into one whose effect is
  known exactly: `insert` (a call to a tool that does not exist before the first golden call:
  one extra step, an error the environment answers), `drop` (the first golden call left out),
  `malformed` (every tool call with arguments that are not JSON: the simulation fails),
  `english_reply` / `japanese_reply` (the last message in the other language), `swap_names` (a
  lookup by name first called with given and family names swapped, then as it should be),
  `japanese_enum` (a call whose enum literal is first passed in Japanese, then as it should be),
  and for the customer `first_turn_stop` (###STOP### as its first message).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from jtau.arms import split_domain

if TYPE_CHECKING:
    from jtau.rules import DomainRules

AGENT, CUSTOMER, JUDGE, JUDGE_UNMET, JUDGE_EMPTY = ("jtau-golden", "jtau-customer", "jtau-judge", "jtau-judge-unmet",
                                                   "jtau-judge-empty")
MARK = re.compile(r" · (?P<conv>c\d+)\]")  # the end of "[task ID · c12]" (telecom's ids hold brackets)
STOP = "###STOP###"
PROBE = "jtau_planted_probe"  # the tool an `insert` calls: none of tau2's
KINDS = ("insert", "drop", "malformed", "english_reply", "japanese_reply", "swap_names", "japanese_enum",
         "first_turn_stop")
SAY = {"en": {"open": "Hello, I need some help.", "yes": "Yes, please go ahead.",
              "self": "Please do that on your side.", "said": "Please note: {values}"},
       "ja": {"open": "よろしくお願いします。", "yes": "はい、お願いします。",
              "self": "お客様ご自身でお手続きをお願いいたします。", "said": "ご確認ください: {values}"}}


@dataclass(frozen=True)
class Deviation:
    """A planted deviation of `kind` in the conversations of these arms and tasks."""
    kind: str
    arms: frozenset[str]
    tasks: frozenset[str]

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown deviation {self.kind!r}; kinds: {', '.join(KINDS)}")


@dataclass
class Conversation:
    domain: str
    task: dict
    language: str          # the language the customer speaks
    done: int = 0          # golden actions made
    extra: list = field(default_factory=list)  # planted calls still to make before the next golden one
    started: bool = False  # the agent has acted (first-call deviations are planted once)
    tried: bool = False    # a wrong first try was planted


def scenario_texts(task: dict) -> list[str]:
    scenario = task.get("user_scenario") or {}
    texts = ["".join(str(scenario.get("persona") or "").split())]
    instructions = scenario.get("instructions")
    if isinstance(instructions, str):  # banking_knowledge: one text
        return texts + ["".join(instructions.split())]
    instructions = instructions or {}
    return texts + ["".join(str(instructions.get(key) or "").split())
                    for key in ("reason_for_call", "known_info", "unknown_info", "task_instructions")]


class ScriptedServer:
    """The scripted agent, customer and judge on a free port of 127.0.0.1 (a context manager).

    `tasks_of(domain)` gives a tau2 domain's tasks as JSON; `domains` are the domains whose
    conversations it may meet, `task_ids` (None: all) the tasks (telecom's scenarios repeat
    across tasks that differ in their initial state only: the customer tells them apart among
    the experiment's tasks).  `english_prompt_marker` tells the English-prompted customer."""

    def __init__(self, domains: Iterable[str], tasks_of: Callable[[str], list[dict]],
                 deviations: Iterable[Deviation] = (), english_prompt_marker: str | None = None,
                 rules_of: Callable[[str], DomainRules | None] | None = None, task_ids: Iterable[str] | None = None):
        self.domains = list(dict.fromkeys(domains))
        wanted = None if task_ids is None else {str(i) for i in task_ids}
        self.tasks = {d: {str(t["id"]): t for t in tasks_of(d) if wanted is None or str(t["id"]) in wanted}
                      for d in self.domains}
        self.deviations = list(deviations)
        self.marker = english_prompt_marker
        self.rules_of = rules_of
        self.conversations: dict[str, Conversation] = {}
        self.counter = itertools.count(1)
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.judged: list[list[dict]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self) -> "ScriptedServer":
        # shutdown waits for the loop's next poll: 0.5 s by default, at the end of every calibration
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def args(self) -> dict:
        """The llm args that reach this server (no secret: the server takes any key)."""
        return {"api_base": self.url, "temperature": 0.0}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                try:
                    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                    model = str(body.get("model", "")).rsplit("/", 1)[-1]
                    role = {AGENT: server.agent, CUSTOMER: server.customer, JUDGE: server.judge,
                            JUDGE_UNMET: server.judge, JUDGE_EMPTY: server.judge}.get(model)
                    if role is None:
                        raise ValueError(f"no scripted model {model!r} (models: {AGENT}, {CUSTOMER}, {JUDGE})")
                    message = role(body["messages"], model)
                    status, payload = 200, {
                        "id": "scripted", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                except Exception as exc:  # noqa: BLE001 - reported to the caller and kept for the tests
                    with server.lock:
                        server.errors.append(f"{type(exc).__name__}: {exc}")
                    status, payload = 500, {"error": {"message": str(exc)}}
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    # --- planted deviations ----------------------------------------------------------------

    def planted(self, kind: str, conversation: Conversation) -> bool:
        _, arm = split_domain(conversation.domain)
        task_id = str(conversation.task["id"])
        return any(d.kind == kind and arm is not None and arm.name in d.arms and task_id in d.tasks
                   for d in self.deviations)

    # --- the customer ----------------------------------------------------------------------

    def find(self, prompt: str) -> tuple[str, dict]:
        """(domain, task) whose scenario tau2 wrote into the customer's prompt."""
        prompt = "".join(prompt.split())  # tau2 indents the scenario's lines
        found = []
        for domain, tasks in self.tasks.items():
            for task in tasks.values():
                texts = scenario_texts(task)
                if all(text in prompt for text in texts):
                    found.append((sum(map(len, texts)), domain, task))
        if not found:
            raise ValueError("no task of the scripted domains matches the customer's scenario")
        best = max(length for length, _, _ in found)
        candidates = [(d, t) for length, d, t in found if length == best]
        actions = {json.dumps(((t.get("evaluation_criteria") or {}).get("actions")), sort_keys=True)
                   for _, t in candidates}
        if len(actions) > 1:
            raise ValueError(f"the customer's scenario is that of {len(candidates)} tasks whose golden actions differ "
                             f"({', '.join(sorted({str(t['id']) for _, t in candidates})[:3])} ...): run tasks "
                             "whose scenarios differ")
        return candidates[0]

    def customer(self, messages: list[dict], model: str) -> dict:
        system = messages[0].get("content") or ""
        if not any(m["role"] == "assistant" for m in messages[1:]):
            return self.open(system)
        conversation = self.conversation(messages)
        action = self.next_action(conversation)
        if action is not None and action.get("requestor") == "user":
            return self.tool_call(conversation, action)
        return {"role": "assistant", "content": STOP if action is None else SAY[conversation.language]["yes"]}

    def open(self, system: str) -> dict:
        domain, task = self.find(system)
        base, arm = split_domain(domain)
        english_prompted = bool(self.marker and self.marker in system)
        if english_prompted and arm is not None and not arm.japanese_text:
            domain = f"{base}_{'ja' if arm.localizes_entities else 'ja-text'}"  # the arm it speaks Japanese in
        _, arm = split_domain(domain)
        language = "ja" if english_prompted or (arm is not None and arm.japanese_text) else "en"
        conv = f"c{next(self.counter)}"
        conversation = Conversation(domain, self.tasks.get(domain, {}).get(str(task["id"]), task), language)
        with self.lock:
            self.conversations[conv] = conversation
        if self.planted("first_turn_stop", conversation):
            return {"role": "assistant", "content": STOP}
        return {"role": "assistant", "content": f"[task {task['id']} · {conv}] {SAY[language]['open']}"}

    def conversation(self, messages: list[dict]) -> Conversation:
        for message in messages:
            match = MARK.search(message.get("content") or "")
            if match:
                return self.conversations[match["conv"]]
        raise ValueError("the conversation names no scripted task")

    # --- the agent -------------------------------------------------------------------------

    def agent(self, messages: list[dict], model: str) -> dict:
        conversation = self.conversation([m for m in messages if m["role"] == "user"])
        if conversation.extra:
            return self.call(conversation, conversation.extra.pop(0))
        action = self.next_action(conversation)
        if action is not None and not conversation.started:
            conversation.started = True
            self.plant_first(conversation, action)
            if conversation.extra:
                return self.call(conversation, conversation.extra.pop(0))
            action = self.next_action(conversation)
        if action is not None and action.get("requestor", "assistant") == "assistant":
            self.plant_before(conversation, action)
            if conversation.extra:
                return self.call(conversation, conversation.extra.pop(0))
            return self.tool_call(conversation, action)
        language = "ja" if conversation.language == "ja" else "en"
        if action is not None:
            return {"role": "assistant", "content": SAY[language]["self"]}
        if self.planted("english_reply", conversation):
            language = "en"
        elif self.planted("japanese_reply", conversation):
            language = "ja"
        criteria = conversation.task.get("evaluation_criteria") or {}
        said = " / ".join(criteria.get("communicate_info") or []) or "-"
        return {"role": "assistant", "content": SAY[language]["said"].format(values=said)}

    def plant_first(self, conversation: Conversation, action: dict) -> None:
        """Deviations of a conversation's first golden call: an inserted probe, a dropped call."""
        if self.planted("insert", conversation):
            conversation.extra.append({"name": PROBE, "arguments": {}})
        if self.planted("drop", conversation) and action.get("requestor", "assistant") == "assistant":
            conversation.done += 1

    def plant_before(self, conversation: Conversation, action: dict) -> None:
        """A wrong first try before a golden call: names swapped, an enum literal in Japanese
        (once per conversation, on the first call that has such an argument)."""
        if conversation.tried or self.rules_of is None:
            return
        base, _ = split_domain(conversation.domain)
        rules = self.rules_of(base)
        kinds = rules.tools.get(action["name"], {}) if rules else {}
        arguments = dict(action.get("arguments") or {})
        if self.planted("swap_names", conversation):
            given = [k for k, kind in kinds.items() if kind == "given_name"]
            family = [k for k, kind in kinds.items() if kind == "family_name"]
            whole = [k for k, kind in kinds.items() if kind in ("full_name", "bank_person")
                     and isinstance(arguments.get(k), str) and " " in arguments[k]]
            if given and family:
                arguments[given[0]], arguments[family[0]] = arguments[family[0]], arguments[given[0]]
            elif whole:
                arguments[whole[0]] = " ".join(reversed(arguments[whole[0]].split()))
            else:
                return
        elif self.planted("japanese_enum", conversation) and rules:
            literal = next((k for k, v in arguments.items() if isinstance(v, str) and v in rules.enum_literals), None)
            if literal is None:
                return
            arguments[literal] = "ビジネス"
        else:
            return
        conversation.tried = True
        conversation.extra.append({"name": action["name"], "arguments": arguments})

    # --- calls -----------------------------------------------------------------------------

    def next_action(self, conversation: Conversation) -> dict | None:
        actions = (conversation.task.get("evaluation_criteria") or {}).get("actions") or []
        return actions[conversation.done] if conversation.done < len(actions) else None

    def tool_call(self, conversation: Conversation, action: dict) -> dict:
        conversation.done += 1
        return self.call(conversation, action)

    def call(self, conversation: Conversation, action: dict) -> dict:
        arguments = json.dumps(action.get("arguments") or {}, ensure_ascii=False)
        if self.planted("malformed", conversation):
            arguments = arguments[:-1] + ", }"  # not JSON: the runtime cannot parse the call
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{conversation.done}_{len(conversation.extra)}", "type": "function",
            "function": {"name": action["name"], "arguments": arguments}}]}

    # --- the judge -------------------------------------------------------------------------

    def judge(self, messages: list[dict], model: str) -> dict:
        """tau2 1.0.1's NL-assertion judge: every assertion it is given, met (`jtau-judge`) or
        not (`jtau-judge-unmet`)."""
        with self.lock:
            self.judged.append(messages)
        listed = messages[-1]["content"].split("expectedOutcomes:", 1)[1].strip()
        try:
            assertions = json.loads(listed.replace("'", '"')) if listed.startswith("[") else [listed]
        except json.JSONDecodeError:
            assertions = [listed]
        results = [] if model == JUDGE_EMPTY else [
            {"expectedOutcome": a, "reasoning": "scripted", "metExpectation": model == JUDGE} for a in assertions]
        return {"role": "assistant", "content": json.dumps({"results": results}, ensure_ascii=False)}
