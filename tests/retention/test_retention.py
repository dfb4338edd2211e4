"""Retention on constructed traces whose answers are known by hand."""

from __future__ import annotations

import json
import random

import pytest

from conftest import PROJECT, ROOT, banking_here, jtau
from jtau.errors import InputError
from jtau.maps import load_maps
from jtau.retention.canonical import Canonicalizer
from jtau.retention.corpus import analyze
from jtau.retention.importers import from_react, from_tau2_results, parse_react
from jtau.retention.traces import Trace, write_traces

MAPS = load_maps(ROOT / "entity_maps")


def run(traces, **kw):
    return analyze(traces, Canonicalizer(MAPS), "en", "ja", kw.pop("permutations", 200),
                   kw.pop("bootstrap", 200), **kw).cells


def t(language, replicate, task, tools, parsed=True, model="m", temperature=0.0):
    return Trace(model, "bench", language, temperature, replicate, str(task), parsed,
                 [{"tool": x, "args": {}} for x in tools] if parsed else [])


def test_identical_traces_everywhere_retain_everything():
    traces = [t(lang, r, task, [f"tool{task}", "b", "c"]) for task in range(5) for lang in ("en", "ja") for r in (0, 1)]
    [cell] = run(traces)
    for level in ("route", "full"):
        numbers = cell["levels"][level]
        assert numbers["iwithin"] == numbers["icross"] == numbers["retention"] == 1.0
        assert numbers["gap_naive"] == 0.0 and numbers["retention_corrected"] == 1.0
        assert numbers["gap_corrected_ci"] == [0.0, 0.0]


def test_an_extra_leading_action_costs_exactly_one_edit():
    lengths = {0: 1, 1: 2, 2: 3, 3: 4}
    traces = []
    for task, n in lengths.items():
        tools = [f"t{task}_{i}" for i in range(n)]
        for r in (0, 1):
            traces += [t("en", r, task, tools), t("ja", r, task, ["extra", *tools])]
    [cell] = run(traces)
    numbers = cell["levels"]["route"]
    expected = sum(n / (n + 1) for n in lengths.values()) / len(lengths)
    assert numbers["iwithin"] == 1.0
    assert numbers["icross"] == pytest.approx(expected, abs=1e-12)
    assert numbers["retention"] == pytest.approx(expected, abs=1e-12)
    assert numbers["pairs_cross"] == 8  # cross-seed only: (en 0, ja 1), (en 1, ja 0) per task


def test_pairs_of_empty_traces_are_excluded_and_counted():
    traces = [t(lang, r, 0, ["a", "b"]) for lang in ("en", "ja") for r in (0, 1)]
    traces += [t(lang, r, 1, []) for lang in ("en", "ja") for r in (0, 1)]   # a task with nothing to do
    traces += [t("en", 0, 2, []), t("en", 1, 2, ["a"]), t("ja", 0, 2, ["a"]), t("ja", 1, 2, ["a"])]
    [cell] = run(traces)
    numbers = cell["levels"]["route"]
    assert numbers["empty_pairs_excluded"] == 4   # task 1: 2 within + 2 cross
    assert numbers["tasks"] == 2                  # task 1 contributes nothing, never 1.0
    # task 2: within en 0.0, within ja 1.0; cross (en0, ja1) = 0.0, (en1, ja0) = 1.0
    assert numbers["iwithin"] == pytest.approx((1.0 + 0.5) / 2)
    assert numbers["icross"] == pytest.approx((1.0 + 0.5) / 2)


def test_parse_failures_are_counted_and_a_cell_above_20_percent_is_unranked():
    traces = []
    for task in range(10):
        traces += [t("en", r, task, ["a", "b"]) for r in (0, 1)]
        traces += [t("ja", 0, task, ["a", "b"]), t("ja", 1, task, [], parsed=task >= 9)]
    [cell] = run(traces)
    assert cell["rollouts"] == 40 and cell["failures"] == 9
    assert cell["failure_rate"] == pytest.approx(0.225) and cell["ranked"] is False
    numbers = cell["levels"]["route"]
    assert numbers["pairs_cross"] == 11   # unparsed rollouts take part in no pair


def test_the_floor_of_task_independent_traces_equals_their_agreement():
    rng = random.Random(7)
    tools = ["a", "b", "c"]
    traces = [t(lang, r, task, [rng.choice(tools) for _ in range(4)])
              for task in range(300) for lang in ("en", "ja") for r in (0, 1)]
    [cell] = run(traces, permutations=4000)
    numbers = cell["levels"]["route"]
    assert numbers["floor"] == pytest.approx(numbers["iwithin"], abs=0.02)
    assert numbers["floor"] == pytest.approx(numbers["icross"], abs=0.02)
    assert abs(numbers["iwithin_corrected"]) < 0.05


def test_cells_are_model_benchmark_temperature_and_tool_shares_add_up():
    traces = [t(lang, r, 0, ["a", "a", "b"], model=m, temperature=temp)
              for m in ("m1", "m2") for temp in (0.0, 0.5) for lang in ("en", "ja") for r in (0, 1)]
    cells = run(traces)
    assert [(c["model"], c["temperature"]) for c in cells] == [("m1", 0.0), ("m1", 0.5), ("m2", 0.0), ("m2", 0.5)]
    assert cells[0]["tool_share"]["en"] == {"a": pytest.approx(2 / 3), "b": pytest.approx(1 / 3)}


def golden(domain: str, map_back: bool = True) -> dict:
    """The golden actions of a domain's source tasks (with J-tau's repairs) as arm `en` and of
    J-tau's tasks as arm `ja`, two trials each with different seeds: the agent's calls only."""
    from jtau.pipeline import load_repaired
    from jtau.rules import load_rules

    source, _ = load_repaired(load_rules(domain), PROJECT)
    localized = json.loads((ROOT / "data" / "domains" / domain / "tasks.json").read_text(encoding="utf-8"))
    traces = []
    for language, tasks in (("en", source.tasks), ("ja", localized)):
        for task in tasks:
            actions = [{"tool": a["name"], "args": a["arguments"]} for a in task["evaluation_criteria"]["actions"] or []
                       if a.get("requestor", "assistant") == "assistant"]
            traces += [Trace("golden", domain, language, 0.0, r, str(task["id"]), True, actions, seed=100 + r)
                       for r in (0, 1)]
    [cell] = analyze(traces, Canonicalizer(MAPS if map_back else None), "en", "ja", 200, 0, details=True).cells
    return cell


@pytest.mark.parametrize("domain,tasks", [("airline", 43), ("retail", 112), ("telecom", 1720),
                                          ("banking_knowledge", 90)])
def test_golden_routes_in_both_languages_retain_exactly_once_arguments_are_in_one_space(domain, tasks):
    """Calibration: the agent's golden calls in English and in J-tau are one route, argument for
    argument, on every domain (people, ids, emails, addresses, phones, dates, yen, products,
    merchants; banking's discoverable calls by their inner tool).  Without the maps they are not."""
    if domain == "banking_knowledge" and not banking_here():
        pytest.skip("tau2-bench 1.0.1 with its data (TAU2_DATA_DIR) only")
    cell = golden(domain)
    assert cell["benchmark"] == domain
    for level in ("route", "full"):
        assert cell["levels"][level]["retention"] == 1.0 and cell["levels"][level]["tasks"] == tasks
    assert all(t["parted_at"] is None for t in cell["tasks"])
    unmapped = golden(domain, map_back=False)
    assert unmapped["levels"]["route"]["retention"] == 1.0
    # telecom's golden agent calls name ids only; its lookups by name and phone are tested below
    assert unmapped["levels"]["full"]["retention"] < 0.99 or domain == "telecom"


def test_a_real_cell_holds_exactly_the_fields_its_type_documents():
    """retention/cell.py is the contract the report, the summary and the JSON read: a cell of the
    real airline golden routes (with details) has every required field of Cell and Level, and no
    field they do not document."""
    from jtau.retention.cell import Cell, Level

    cell = golden("airline")
    assert Cell.__required_keys__ <= cell.keys() <= Cell.__required_keys__ | Cell.__optional_keys__
    assert {"reward", "tasks", "diagnostics"} <= cell.keys()  # details: the optional fields do occur
    for level in cell["levels"].values():
        assert level.keys() == Level.__required_keys__
    assert set(cell["levels"]) == {"route", "full"}


def test_telecom_lookups_by_name_and_phone_compare_in_one_space():
    english = [{"tool": "get_customer_by_phone", "args": {"phone_number": "555-123-2002"}},
               {"tool": "get_customer_by_name", "args": {"full_name": "John Smith", "dob": "1985-06-15"}}]
    japanese = [{"tool": "get_customer_by_phone", "args": {"phone_number": "090-0000-2002"}},
                {"tool": "get_customer_by_name", "args": {"full_name": "高橋 健太", "dob": "1985-06-15"}}]
    traces = [Trace("m", "telecom-workflow", lang, 0.0, r, "1", True, actions, seed=r)
              for lang, actions in (("en", english), ("ja", japanese)) for r in (0, 1)]
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", "ja", 50, 0).cells
    assert cell["benchmark"] == "telecom-workflow" and cell["levels"]["full"]["retention"] == 1.0
    swapped = [dict(japanese[0]),
               {"tool": "get_customer_by_name", "args": {"full_name": "健太 高橋", "dob": "1985-06-15"}}]
    traces = traces[:2] + [Trace("m", "telecom-workflow", "ja", 0.0, r, "1", True, swapped, seed=r) for r in (0, 1)]
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", "ja", 50, 0).cells
    assert cell["levels"]["full"]["icross"] == 0.5 and cell["levels"]["route"]["icross"] == 1.0


def test_react_parser_counts_prose_instead_of_emptying_it(tmp_path):
    assert parse_react("We will use Translate to answer.") is None
    assert parse_react("Thought: done.\nFinish[ok]") == []
    assert parse_react("**Action 1:** search_direct_flight\nAction Input: {\"origin\": \"HND\"}\nObservation: []\n"
                       "Action: get_user_details(user_id=\"emi_kaneko_9957\")\nFinish") == [
        {"tool": "search_direct_flight", "args": {"origin": "HND"}},
        {"tool": "get_user_details", "args": {"user_id": "emi_kaneko_9957"}}]
    meta = {"model": "m", "benchmark": "airline", "language": "en", "temperature": 0, "task_id": "1"}
    path = tmp_path / "react.jsonl"
    path.write_text("\n".join(json.dumps({**meta, "replicate": r, "transcript": text}) for r, text in
                              enumerate(["Action: Translate\nFinish", "We will use Translate"])) + "\n")
    traces, failed = from_react(path)
    assert failed == 1 and [tr.parsed for tr in traces] == [True, False] and traces[1].actions == []


def test_tau2_results_become_traces(tmp_path):
    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

    calls = [ToolCall(id="1", name="get_user_details", arguments={"user_id": "emi_kaneko_9957"})]
    messages = [UserMessage(role="user", content="こんにちは"),
                AssistantMessage(role="assistant", tool_calls=calls),
                ToolMessage(id="1", role="tool", content="{}"),
                AssistantMessage(role="assistant", content="承知しました。")]
    results = {
        "info": {"agent_info": {"implementation": "llm_agent", "llm": "gpt-x", "llm_args": {"temperature": 0.5}},
                 "environment_info": {"domain_name": "airline_ja", "policy": ""}},
        "simulations": [{"id": "s", "task_id": "0", "trial": 1, "termination_reason": "user_stop", "reward_info": None,
                         "messages": [json.loads(m.model_dump_json()) for m in messages]}],
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results, ensure_ascii=False))
    [trace] = from_tau2_results(path)
    assert (trace.model, trace.benchmark, trace.language, trace.temperature, trace.replicate) == \
        ("gpt-x", "airline", "ja", 0.5, 1)
    assert trace.actions == [{"tool": "get_user_details", "args": {"user_id": "emi_kaneko_9957"}}]


def test_cli_import_analyze_json_and_plot(tmp_path):
    traces = tmp_path / "traces.jsonl"
    write_traces(traces, [t(lang, r, task, ["a", "b"]) for task in range(3) for lang in ("en", "ja") for r in (0, 1)])
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    result = jtau("retention", "analyze", str(traces), "--json", str(out_json), "--plot", str(out_png),
                  "--permutations", "50", "--bootstrap", "50")
    assert result.returncode == 0, result.stderr
    numbers = json.loads(out_json.read_text())
    assert numbers["cells"][0]["levels"]["full"]["retention"] == 1.0
    assert numbers["summary"]["rows"][1]["row"] == "matched" and numbers["summary"]["rows"][1]["retention"] == 1.0
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    broken = tmp_path / "broken.jsonl"
    broken.write_text(traces.read_text().splitlines()[0] + "\n{\"model\": \"m\"}\n")
    result = jtau("retention", "analyze", str(broken))
    assert result.returncode == 2 and "broken.jsonl:2: missing benchmark" in result.stderr


def test_identical_traces_give_matched_retention_one_and_every_gap_zero():
    traces = [t(lang, r, task, [f"tool{task}", "b", "c"]) for task in range(6) for lang in ("en", "ja") for r in (0, 1)]
    [cell] = run(traces)
    for level in ("route", "full"):
        n = cell["levels"][level]
        assert n["retention_matched"] == 1.0 and n["matching_dropped"] == 0.0
        assert n["gap_raw"] == n["gap_matched"] == n["gap_corrected"] == 0.0
        assert n["floor_within"] == n["floor_cross"]  # paired floors: identical languages, identical floors
        assert n["gap_corrected_ci"] == n["gap_matched_ci"] == [0.0, 0.0]


def test_a_target_that_prepends_one_call_to_length_4_traces_retains_0_8_matched():
    traces = []
    for task in range(8):
        tools = [f"t{task}_{i}" for i in range(4)]
        for r in (0, 1, 2):
            traces += [t("en", r, task, tools), t("ja", r, task, ["extra", *tools])]
    [cell] = run(traces, baseline="source")
    n = cell["levels"]["route"]
    assert n["icross_matched"] == pytest.approx(0.8) and n["iwithin_matched"] == pytest.approx(1.0)
    assert n["retention_matched"] == pytest.approx(0.8)
    assert n["iwithin_source"] == n["iwithin_target"] == 1.0
    assert n["gap_matched"] == pytest.approx(0.2)


def test_each_target_language_is_its_own_cell_and_parse_failures_count_per_language():
    traces = []
    for task in range(10):
        tools = [f"t{task}", "x"]
        traces += [t("en", r, task, tools) for r in (0, 1)]
        traces += [t("ja", r, task, tools) for r in (0, 1)]
        traces += [t("hi", 0, task, tools), t("hi", 1, task, [], parsed=task >= 6)]  # hi: 4 of 20 -> 20%
        traces += [t("hi2", 0, task, tools),
                   t("hi2", 1, task, [], parsed=task >= 6) if task else t("hi2", 1, task, [], parsed=False)]
    cells = analyze(traces, Canonicalizer(MAPS), "en", None, 100, 0).cells
    assert [(c["source"], c["target"]) for c in cells] == [("en", "hi"), ("en", "hi2"), ("en", "ja")]
    by_target = {c["target"]: c for c in cells}
    assert by_target["hi"]["failure_rate_by_language"] == {"en": 0.0, "hi": 0.3}
    assert by_target["hi"]["ranked"] is False and by_target["ja"]["ranked"] is True
    assert by_target["hi"]["unranked_because"] == ["hi: 30.0% failed (> 20%)"]
    pairs = analyze(traces, Canonicalizer(MAPS), "en", None, 100, 0, pairs=[("ja", "hi")]).cells
    assert [(c["source"], c["target"]) for c in pairs] == [("ja", "hi")]


def test_a_trace_row_without_temperature_and_tau2_results_without_one_are_refused(tmp_path):
    rows = tmp_path / "traces.jsonl"
    rows.write_text(json.dumps({"model": "m", "benchmark": "b", "language": "en", "temperature": 0, "replicate": 0,
                                "task_id": "1", "parsed": True, "actions": []}) + "\n"
                    + json.dumps({"model": "m", "benchmark": "b", "language": "en", "replicate": 1,
                                  "task_id": "1", "parsed": True, "actions": []}) + "\n")
    result = jtau("retention", "analyze", str(rows))
    assert result.returncode == 2 and f"{rows}:2: missing temperature" in result.stderr
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"info": {"agent_info": {"llm": "gpt-x", "llm_args": {}},
                                            "environment_info": {"domain_name": "airline_ja"}},
                                   "simulations": [{"task_id": "0", "trial": 0, "termination_reason": "user_stop",
                                                    "reward_info": None, "messages": []}]}))
    refused = jtau("retention", "import", "--tau2", str(results), "-o", str(tmp_path / "t.jsonl"))
    assert refused.returncode == 2 and "temperature is not recorded" in refused.stderr
    given = jtau("retention", "import", "--tau2", str(results), "--temperature", "0.7", "-o", str(tmp_path / "t.jsonl"))
    assert given.returncode == 0 and json.loads((tmp_path / "t.jsonl").read_text())["temperature"] == 0.7


def _cell(model, temperature, retention_matched, gap_corrected, ci, ranked=True):
    level = {"iwithin": 1.0, "icross": retention_matched, "retention": retention_matched,
             "gap_raw": 1 - retention_matched, "iwithin_matched": 1.0, "icross_matched": retention_matched,
             "retention_matched": retention_matched, "gap_matched": 1 - retention_matched,
             "gap_corrected": gap_corrected, "gap_corrected_ci": ci}
    return {"model": model, "temperature": temperature, "ranked": ranked, "levels": {"full": level, "route": level}}


def test_the_summary_counts_positive_gaps_intervals_band_variance_and_rank_agreement():
    from jtau.retention.summary import across_models, spearman, temperature_rows

    cells = [_cell("a", 0.0, 0.9, 0.05, [0.01, 0.09]), _cell("a", 0.0, 0.7, 0.15, [-0.02, 0.30]),
             _cell("b", 0.0, 0.6, 0.30, [0.20, 0.40]), _cell("c", 0.0, 0.5, -0.01, [-0.05, 0.03]),
             _cell("x", 0.0, 0.1, 0.90, [0.8, 1.0], ranked=False),
             _cell("a", 0.5, 0.8, 0.10, None), _cell("b", 0.5, 0.5, 0.35, None), _cell("c", 0.5, 0.4, 0.02, None)]
    rows = temperature_rows(cells)
    t0 = [r for r in rows if r["temperature"] == 0.0]
    assert [r["row"] for r in t0] == ["naive", "matched"] and t0[0]["cells"] == 4  # the unranked cell left out
    assert t0[1]["retention"] == pytest.approx((0.9 + 0.7 + 0.6 + 0.5) / 4)
    assert t0[0]["positive_gaps"] == 3 and t0[0]["intervals_excluding_zero"] == 2
    models = across_models(cells)
    t0m = models["per_temperature"]["0"]
    assert t0m["band"] == pytest.approx(0.8 - 0.5)  # model means a 0.8, b 0.6, c 0.5
    values = [0.9, 0.7, 0.6, 0.5]
    between = 2 * (0.8 - 0.675) ** 2 + (0.6 - 0.675) ** 2 + (0.5 - 0.675) ** 2
    total = sum((v - 0.675) ** 2 for v in values)
    assert t0m["variance_explained_by_model"] == pytest.approx(between / total)
    # orderings by corrected gap: T=0 a 0.10, b 0.30, c -0.01; T=0.5 a 0.10, b 0.35, c 0.02: the same order
    assert models["rank_correlation_of_corrected_gaps"]["0 vs 0.5"] == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_translate_calls_and_the_ascii_share_of_reasoning_are_reported_per_language():
    traces = []
    for task in range(4):
        for r in (0, 1):
            traces.append(Trace("m", "b", "en", 0.0, r, str(task), True, [{"tool": "search", "args": {}}],
                                thoughts="Let me search."))
            traces.append(Trace("m", "b", "hi", 0.0, r, str(task), True,
                                [{"tool": "Translate", "args": {}}, {"tool": "search", "args": {}}],
                                thoughts="खोज" + "abc"))
    languages = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0).summary["languages"]
    assert languages["hi"]["translate_call_share"] == 0.5 and languages["en"]["translate_call_share"] == 0.0
    assert languages["en"]["thoughts_ascii_share"] == 1.0
    assert languages["hi"]["thoughts_ascii_share"] == pytest.approx(3 / 6)


@pytest.mark.xdist_group("fuzz")  # where the fuzz tests' seeds (real scripted tau2 runs) are drawn once
def test_tau2_bench_1_0_1_dir_format_reads_as_the_one_file(tmp_path):
    """A run in 1.0.1's dir format (`tau2 convert-results`: results.json beside simulations/ID.json)
    gives the traces of the same run in one file; real results of the scripted agent."""
    from fuzzkit.retention import results_seeds
    from jtau.runtime.compat import is_tau3

    single = tmp_path / "single.json"
    single.write_bytes(results_seeds()["airline_ja"])
    folder = tmp_path / "dir"
    if is_tau3():
        from tau2.data_model.simulation import Results

        Results.load(single).save(folder / "results.json", format="dir")
    else:  # the layout 1.0.1 writes, by hand
        data = json.loads(single.read_text(encoding="utf-8"))
        (folder / "simulations").mkdir(parents=True)
        for sim in data.pop("simulations"):
            (folder / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim), encoding="utf-8")
        (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    assert "simulations" not in json.loads((folder / "results.json").read_text(encoding="utf-8"))
    key = lambda trace: (trace.task_id, trace.replicate)  # noqa: E731
    one, split = sorted(from_tau2_results(single), key=key), sorted(from_tau2_results(folder), key=key)
    for trace in (*one, *split):  # (tau2's own conversion drops the "jtau" stamp of `jtau tau2 run`)
        trace.jtau = trace.dataset = None
    assert [t.to_json() for t in one] == [t.to_json() for t in split] and len(one) == 4
    first = json.loads(single.read_text(encoding="utf-8"))["simulations"][0]["id"]
    (folder / "simulations" / f"{first}.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match=rf"/simulations/{first}\.json: \$\.task_id: missing"):
        from_tau2_results(folder)


def _corpus(seed: int = 3) -> list[Trace]:
    """Several groups (models x temperatures), three languages, failures, rewards, seeds."""
    rng = random.Random(seed)
    traces = []
    for model in ("m1", "m2", "m3"):
        for temperature in (0.0, 0.7):
            for task in range(6):
                base = [rng.choice("abcde") for _ in range(rng.randrange(1, 6))]
                for language in ("en", "ja", "hi"):
                    for replicate in range(rng.choice((1, 2, 3))):
                        tools = [x for x in base if rng.random() > 0.2] + (["translate"] if rng.random() < 0.1 else [])
                        trace = t(language, replicate, task, tools, rng.random() > 0.05, model, temperature)
                        trace.reward, trace.seed = rng.choice((0.0, 1.0)), 100 + replicate
                        traces.append(trace)
    return traces


def test_processes_split_by_groups_give_the_numbers_and_the_failure_of_one(tmp_path):
    """Files or a list read by two processes, each its share of the groups: the cells, summary and
    decomposition of one process, to the byte; the failure of the line read first."""
    from jtau.retention.traces import TraceFiles, read_traces

    path = tmp_path / "traces.jsonl"
    traces = _corpus()
    write_traces(path, traces)

    def numbers(source, workers):
        result = analyze(source, Canonicalizer(MAPS), "en", None, 100, 100, details=True, workers=workers)
        return json.dumps([result.cells, result.summary, result.decomposition])

    one = numbers(iter(traces), 1)  # an iterator: grouped in this process
    assert numbers(TraceFiles((path,)), 2) == numbers(traces, 2) == numbers(TraceFiles((path,)), 1) == one
    lines = path.read_text().splitlines()
    lines.insert(40, lines[3])  # a duplicate in one process' group, a broken line of the other's after it
    lines.insert(60, lines[len(lines) - 1].replace('"parsed":true', '"parsed":"yes"'))
    path.write_text("\n".join(lines) + "\n")
    for source in (TraceFiles((path,)), read_traces([path])):  # split, and read by one process
        with pytest.raises(InputError, match=r"traces.jsonl:41: the same rollout as .*traces.jsonl:4 "):
            numbers(source, 2)
    lines.insert(20, lines[60])  # now the broken line comes first
    path.write_text("\n".join(lines) + "\n")
    for source in (TraceFiles((path,)), read_traces([path])):
        with pytest.raises(InputError, match=r"traces.jsonl:21: parsed must be true or false"):
            numbers(source, 2)
