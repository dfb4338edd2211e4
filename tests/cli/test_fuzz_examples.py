"""What a structure-aware fuzzer found, one test per example, each now one line and exit 1 or 2,
nothing written, in bounded time and memory.  Each runs the real command in a forked child of
this process (tests/fuzzkit/harness.py), as the fuzzer does."""

from __future__ import annotations

import json

import pytest

from fuzzkit.harness import MAX_LINE, Case, run_case
from fuzzkit.kinds import ROOT, domains_dir, localize_argv, project_case, rules_files, source_links

TM = ROOT / "data" / "tm"
# one worker warms up and draws the retention seeds (real scripted tau2 runs, ~10 s) for every fuzz test
pytestmark = pytest.mark.xdist_group("fuzz")


@pytest.fixture(scope="module", autouse=True)
def warm():
    import fuzzkit

    fuzzkit.warm_up(full=False)


def refused(case: Case, code: int = 2, seconds: float = 30) -> str:
    """Run `case`: it must end in exit `code` with a clear error (one line, its details
    indented) and nothing written; what it printed on stderr."""
    outcome = run_case(case)
    assert (outcome.outcome, outcome.exit_code) == ("refused", code), (outcome.outcome, outcome.detail, outcome.stderr)
    assert outcome.cpu_seconds < seconds, outcome.cpu_seconds
    assert all(len(line) <= MAX_LINE for line in outcome.stderr.splitlines())
    return outcome.stderr


def memory_lines(domain: str = "airline") -> list[bytes]:
    return (TM / f"{domain}.jsonl").read_bytes().splitlines()


def with_line(lines: list[bytes], index: int, line: bytes) -> bytes:
    return b"\n".join([*lines[:index], line, *lines[index + 1:]]) + b"\n"


def source_case(name: str, data: bytes, domain: str = "airline", **fields) -> Case:
    return project_case("source", localize_argv(domain, "{S}/src"), domain, files={f"src/{domain}/{name}": data},
                        links=source_links(domain, {name}), **fields)


def source_json(name: str, domain: str = "airline"):
    return json.loads((domains_dir() / domain / name).read_text())


# --- undecodable or odd text ------------------------------------------------------------

def test_a_memory_line_that_is_not_utf8_names_its_line():
    lines = memory_lines()
    cut = lines[4].index("。".encode())  # a Japanese character cut after its first byte
    data = with_line(lines, 4, lines[4][:cut + 1] + lines[4][cut + 3:])
    case = project_case("tm", localize_argv("airline"), "airline", files={"tm/airline.jsonl": data})
    assert "tm/airline.jsonl:5: not UTF-8" in refused(case)


def test_a_yaml_file_that_is_not_utf8_names_its_line():
    text = (ROOT / "glossaries" / "ja.yaml").read_bytes()
    lines = text.split(b"\n")
    lines[6] = lines[6] + b" \xff"
    case = project_case("yaml", localize_argv("airline"), "airline",
                        files={"project/glossaries/ja.yaml": b"\n".join(lines)})
    assert "glossaries/ja.yaml:7: not UTF-8" in refused(case)


def test_a_lone_surrogate_in_a_target_is_refused_by_the_dry_run_and_by_the_import():
    entry = json.loads(memory_lines()[0])
    answer = json.dumps({"key": entry["key"], "target": entry["target"] + "\ud800"}).encode() + b"\n"
    for options in (["--dry-run"], []):
        case = project_case("cat", ["tm", "import", "airline", "{S}/in.jsonl", "--tm", "{S}/tm", *options], "airline",
                            files={"in.jsonl": answer})
        said = refused(case, code=1)
        assert "in.jsonl:1: " in said and "lone surrogate U+D800" in said


# --- deep nesting -----------------------------------------------------------------------------

DEEP = 1_000


@pytest.mark.parametrize("where", ["memory line", "source json", "yaml", "xliff", "jsonl import"])
def test_input_nested_a_thousand_levels_is_one_line(where):
    if where == "memory line":
        case = project_case("tm", localize_argv("airline"), "airline",
                            files={"tm/airline.jsonl": with_line(memory_lines(), 2, b"[" * DEEP + b"]" * DEEP)})
        expected = ["tm/airline.jsonl:3: not a translation-memory entry: nested too deeply",  # 3.11's parser gives up
                    "tm/airline.jsonl:3: not a translation-memory entry: a JSON list"]  # 3.12+ parses it
    elif where == "source json":
        db = source_json("db.json")
        db["flights"]["deep"] = "@@"
        data = json.dumps(db, indent=4).replace('"@@"', "[\n" * DEEP + "]" * DEEP).encode()
        case = source_case("db.json", data)
        line = data[:data.index(b"[\n" * DEEP)].count(b"\n") + 63  # the 63rd "[" opens level 65
        expected = [f"db.json:{line}: nested deeper than 64 levels",  # Python 3.11's parser gives up: the line
                    "db.json: flights.deep[0][0][0]"]  # 3.12+ parses it, the depth check names the JSON path
    elif where == "yaml":
        deep = "".join("  " * level + f"k{level}:\n" for level in range(DEEP)) + "  " * DEEP + "x: 1\n"
        case = project_case("yaml", ["maps", "check"], files={"project/entity_maps/locale.yaml": deep.encode()})
        expected = ["entity_maps/locale.yaml:64: nested deeper than 64 levels"]
    elif where == "jsonl import":
        line = b'{"key": "k", "target": ' + b"[" * DEEP + b"]" * DEEP + b"}\n"
        case = project_case("cat", ["tm", "import", "airline", "{S}/in.jsonl", "--tm", "{S}/tm"], "airline",
                            files={"in.jsonl": b"\n" + line})
        expected = ["in.jsonl:2: expected a JSON object with key (or source) and target",  # 3.11
                    "in.jsonl:2: target: a text, not list"]  # 3.12+
    else:
        body = "<g>" * DEEP + "x" + "</g>" * DEEP
        xliff = (f'<?xml version="1.0"?>\n<xliff version="1.2"><file><body>\n<trans-unit id="k"><source>s</source>'
                 f"<target>{body}</target></trans-unit></body></file></xliff>\n").encode()
        case = project_case("cat", ["tm", "import", "airline", "{S}/in.xlf", "--tm", "{S}/tm", "--dry-run"], "airline",
                            files={"in.xlf": xliff})
        expected = ["in.xlf:3: elements nested deeper than 64 levels"]
    said = refused(case)
    assert any(one in said for one in expected), said
    assert "nested deeper than 64 levels" in said or where in ("memory line", "jsonl import"), said


def test_yaml_flow_nesting_of_two_thousand_levels_ends_at_once_with_its_line():
    text = (ROOT / "glossaries" / "ja.yaml").read_text() + "\nextra: " + "[" * 2_000 + "]" * 2_000 + "\n"
    case = project_case("yaml", localize_argv("airline"), "airline",
                        files={"project/glossaries/ja.yaml": text.encode()})
    assert f"glossaries/ja.yaml:{text.count(chr(10))}: nested deeper than 64 levels" in refused(case, seconds=5)


# --- wrong types where a shape was assumed ----------------------------------------------------

def test_a_memory_line_whose_kind_is_no_text_is_one_line():
    entry = json.loads(memory_lines()[1])
    entry["kind"] = ["assertion"]
    case = project_case("tm", localize_argv("airline"), "airline",
                        files={"tm/airline.jsonl": with_line(memory_lines(), 1, json.dumps(entry).encode())})
    assert "tm/airline.jsonl:2: not a translation-memory entry: kind: a text, not a JSON list" in refused(case)


def test_a_db_field_of_another_type_is_refused_before_any_stage_reads_it():
    db = source_json("db.json")
    reservation = next(iter(db["reservations"]))
    db["reservations"][reservation]["passengers"] = "two"  # rules/airline.py counts them
    said = refused(source_case("db.json", json.dumps(db, indent=4).encode()))
    assert "does not have the types of tau2's data model" in said.splitlines()[0]
    assert f"db.json: reservations.{reservation}.passengers: schema" in said.splitlines()[1]


def test_an_integer_past_64_bits_in_source_data_is_refused_with_its_json_path():
    db = source_json("db.json")
    user = next(iter(db["users"]))
    db["users"][user]["membership"] = 2**64
    said = refused(source_case("db.json", json.dumps(db).encode()))
    assert said.endswith(f"db.json: users.{user}.membership: an integer past 64 bits\n")


@pytest.mark.parametrize("key", [["a", "list"], 2**64])
def test_a_cat_unit_key_that_is_no_text_is_one_line(key):
    entry = json.loads(memory_lines()[0])
    answer = json.dumps({"key": key, "target": entry["target"]}).encode() + b"\n"
    case = project_case("cat", ["tm", "import", "airline", "{S}/in.jsonl", "--tm", "{S}/tm"], "airline",
                        files={"in.jsonl": answer})
    assert f"in.jsonl:1: key: a text, not {type(key).__name__}" in refused(case)


def test_a_task_repair_that_puts_a_list_where_a_name_belongs_is_one_line():
    """(Found by the fuzzer: tool arguments are free in tau2's schema; validation hashed them.)"""
    # J-tau's own repair (it applies to both sources; τ³'s are recognised as applied on 1.0.1)
    patch = (ROOT / "task_patches" / "airline" / "task_008.yaml").read_text()
    patch += ("- op: add\n  path: /evaluation_criteria/actions/3/arguments/passengers/0/first_name\n"
              "  value: [a, b]\n")
    case = project_case("yaml", localize_argv("airline"), "airline",
                        files={"project/task_patches/airline/task_008.yaml": patch.encode()})
    said = refused(case)
    assert "1 value cannot be localized" in said and "a JSON list where one given_name belongs" in said


@pytest.mark.parametrize("name", ["x" * 300 + ".md", "/etc/hosts", "../airline/policy.md"])
def test_a_rules_file_name_no_folder_can_hold_is_one_line(name):
    """(Found by the long fuzz run: a 300-byte policy name in telecom's rules reached the file
    system, whose "File name too long" escaped as a traceback.)"""
    text = (ROOT / "src" / "jtau" / "domains" / "telecom" / "rules.yaml").read_text()
    assert "tech_support_manual.md," in text
    copies = {f"rules/{p.parent.name}.yaml": str(p) for p in rules_files() if p.parent.name != "telecom"}
    case = project_case("yaml", localize_argv("telecom"), "telecom", copies=copies, setup="rules_from_sandbox",
                        files={"rules/telecom.yaml": text.replace("tech_support_manual.md,", f"{json.dumps(name)},")
                               .encode()})
    said = refused(case)
    assert "telecom.yaml" in said and ("must name a file inside" in said or "at most 255" in said), said


# --- numbers and paths at the edges --------------------------------------------------------------

def test_a_five_thousand_digit_dollar_amount_is_refused_cleanly():
    policy = (domains_dir() / "airline" / "policy.md").read_text()
    policy = policy.replace("with the amount being $100 times", "with the amount being $" + "9" * 5_000 + " times")
    case = source_case("policy.md", policy.encode())  # the same template: the memory has it, the amount renders
    said = refused(case)
    assert "1 value cannot be localized" in said.splitlines()[0]
    assert "is not an amount jtau converts (at most 15 digits before the point)" in said.splitlines()[1]


def test_a_path_component_over_255_characters_is_one_line():
    case = project_case("cli", ["localize", "airline", "--offline", "--out", "{S}/" + "x" * 300], "airline")
    assert "a name of 300 bytes in the path; at most 255 are possible" in refused(case)


def test_a_folder_given_as_an_input_file_says_so():
    case = project_case("cli", ["tm", "import", "airline", "{S}/afolder"], "airline", files={"afolder/.keep": b""})
    assert refused(case).endswith("afolder: is a folder, not a file\n")


# --- exit 0 with a wrong result ------------------------------------------------------------------

@pytest.mark.parametrize("odd", ["\x00", "\x07"])
def test_a_translation_holding_nul_or_bel_never_reaches_the_tasks(odd):
    entry = json.loads(memory_lines()[0])
    answer = json.dumps({"key": entry["key"], "target": entry["target"] + odd}).encode() + b"\n"
    imported = project_case("cat", ["tm", "import", "airline", "{S}/in.jsonl", "--tm", "{S}/tm"], "airline",
                            files={"in.jsonl": answer})
    assert f"control character U+{ord(odd):04X}" in refused(imported, code=1)
    entry["target"] += odd
    in_memory = project_case("tm", localize_argv("airline"), "airline",
                             files={"tm/airline.jsonl": with_line(memory_lines(), 0, json.dumps(entry).encode())})
    assert f"tm/airline.jsonl:1: target: control character U+{ord(odd):04X}" in refused(in_memory)


def test_a_truncated_split_tasks_file_is_never_copied():
    data = (domains_dir() / "airline" / "split_tasks.json").read_bytes()
    assert "split_tasks.json:" in refused(source_case("split_tasks.json", data[: len(data) // 2]))
    splits = json.loads(data)
    splits["test"].append("999")
    assert "split_tasks.json: test[20]: '999' is not a task of tasks.json" in refused(
        source_case("split_tasks.json", json.dumps(splits).encode()))


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinity_in_source_fields_is_refused_with_its_json_path(token):
    db = source_json("db.json")
    flight = next(iter(db["flights"]))
    db["flights"][flight]["dates"] = "@@"
    said = refused(source_case("db.json", json.dumps(db).replace('"@@"', token).encode()))
    assert said.endswith(f"db.json: flights.{flight}.dates: not a finite number (NaN or infinity)\n")


@pytest.mark.parametrize("revision", ["-x", "HEAD~99999", "--output=/tmp/jtau-never"])
def test_review_changed_since_a_bad_revision_is_an_error(revision):
    case = project_case("cli", ["review", "airline", "--out", "{S}/review", "--changed-since", revision], "airline",
                        env={"JTAU_ROOT": str(ROOT)})
    assert f"--changed-since {revision!r}: not a commit of the git checkout" in refused(case, seconds=10)


def test_review_changed_since_outside_a_git_checkout_is_an_error():
    case = project_case("cli", ["review", "airline", "--out", "{S}/review", "--changed-since", "HEAD"], "airline")
    assert refused(case, seconds=10).endswith("is not in a git checkout\n")


# --- unbounded resources ------------------------------------------------------------------------

def test_a_yaml_alias_bomb_is_refused_in_under_2_s_and_200_mb():
    bomb = ['lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    bomb += [f"l{i}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(9)]
    text = (ROOT / "glossaries" / "ja.yaml").read_text() + "\n" + "\n".join(bomb) + "\n"
    assert len(text.encode()) < len((ROOT / "glossaries" / "ja.yaml").read_bytes()) + 4_300  # a few lines
    case = project_case("yaml", localize_argv("airline"), "airline",
                        files={"project/glossaries/ja.yaml": text.encode()})
    outcome = run_case(case)
    assert outcome.outcome == "refused" and outcome.exit_code == 2, outcome.detail
    assert outcome.cpu_seconds < 2 and outcome.memory_mb < 200, (outcome.cpu_seconds, outcome.memory_mb)
    assert "glossaries/ja.yaml:" in outcome.stderr
    assert "an alias (*a): jtau's YAML files hold no aliases" in outcome.stderr


def test_an_entity_expansion_near_expats_limit_prints_no_long_line():
    expansion = "&c;" * 9
    entities = ('<!ENTITY a "' + "x" * 1_000 + '"><!ENTITY b "' + "&a;" * 300 + '"><!ENTITY c "&b;">')
    xliff = (f'<?xml version="1.0"?>\n<!DOCTYPE xliff [{entities}]>\n<xliff version="1.2"><file><body>\n'
             f'<trans-unit id="{expansion}"><source>{expansion}</source><target>x</target></trans-unit>'
             "</body></file></xliff>\n").encode()
    case = project_case("cat", ["tm", "import", "airline", "{S}/in.xlf", "--tm", "{S}/tm", "--dry-run"], "airline",
                        files={"in.xlf": xliff})
    assert "in.xlf:2: an entity declaration (a): jtau reads XLIFF files without entities" in refused(case)


@pytest.mark.parametrize("key", ["1", "null"])
def test_a_task_repair_whose_value_has_a_key_that_is_no_text_is_one_line(key):
    """(Found by the long fuzz run: YAML reads `1:` as a number, JSON's keys are text; the schema
    check raised on it.)"""
    patch = (ROOT / "task_patches" / "retail" / "task_026.yaml").read_text()
    assert "      summary: " in patch
    patch = patch.replace("      summary: ", f"      {key}: ", 1)
    case = project_case("yaml", localize_argv("retail"), "retail",
                        files={"project/task_patches/retail/task_026.yaml": patch.encode()})
    said = refused(case)
    assert "task_026.yaml:" in said and f"a key {'None' if key == 'null' else key} of" in said, said


# --- retention inputs: real results of `jtau tau2 run` (the scripted agent), mutated ----------

def results_case(edit, *options: str, side: str = "airline_ja") -> tuple[Case, str]:
    """`retention import --tau2` of a real results file with `edit(data)` applied: the case and
    the file's sandbox path."""
    from fuzzkit.retention import results_name, results_seeds

    data = json.loads(results_seeds()[side])
    edit(data)
    name = results_name(side)
    case = Case(kind="results", argv=["retention", "import", "--tau2", f"{{S}}/{name}", *options, "-o",
                                      "{S}/traces.jsonl"], files={name: json.dumps(data, ensure_ascii=False).encode()})
    return case, name


def first_call(data) -> tuple[int, int]:
    """(simulation, message) of the first tool call of the agent."""
    from fuzzkit.retention import _calls

    s, m, _ = _calls(data)[0]
    return s, m


def _set(path: tuple, value):
    def edit(data):
        node = data
        for key in path[:-1]:
            node = node[key](data) if callable(key) else node[key]
        node[path[-1]] = value
    return edit


def _call(data) -> dict:
    s, m = first_call(data)
    return data["simulations"][s]["messages"][m]["tool_calls"][0]


RESULTS_EDITS = {  # what is done to the file -> (edit, the error's JSON path and what)
    "the simulations list missing": (lambda d: d.pop("simulations"), "simulations: missing"),
    "the simulations no list": (lambda d: d.update(simulations={"0": {}}), "simulations: not a list"),
    "a simulation's messages not a list": (lambda d: d["simulations"][1].update(messages={"role": "user"}),
                                           "simulations[1].messages: not a list"),
    "reward_info missing": (lambda d: d["simulations"][0].pop("reward_info"), "simulations[0].reward_info: missing"),
    "reward_info without its reward": (lambda d: d["simulations"][2]["reward_info"].pop("reward"),
                                       "simulations[2].reward_info.reward: missing"),
    "termination_reason missing": (lambda d: d["simulations"][3].pop("termination_reason"),
                                   "simulations[3].termination_reason: missing"),
    "task_id of a wrong type": (lambda d: d["simulations"][0].update(task_id=1.5),
                                "simulations[0].task_id: not a string"),
    "task_id a list": (lambda d: d["simulations"][1].update(task_id=["1"]), "simulations[1].task_id: not a string"),
    "trial a text": (lambda d: d["simulations"][0].update(trial="0"), "simulations[0].trial: not an integer"),
    "the recorded temperature negative": (lambda d: d["info"]["agent_info"]["llm_args"].update(temperature=-0.5),
                                          "info.agent_info.llm_args.temperature -0.5: the agent's temperature"),
    "the domain name empty": (lambda d: d["info"]["environment_info"].update(domain_name=""),
                              "info.environment_info.domain_name: empty"),
}


@pytest.mark.parametrize("what", list(RESULTS_EDITS))
def test_tau2_results_with_a_field_missing_or_mistyped_are_one_line(what):
    edit, expected = RESULTS_EDITS[what]
    case, name = results_case(edit)
    said = refused(case, seconds=10)
    assert len(said.splitlines()) == 1 and f"{name}: {expected}" in said, said


@pytest.mark.parametrize("what,value", [("arguments", "user_id=ryo"), ("arguments", ["a"]), ("arguments", None),
                                        ("name", 7), ("name", None)])
def test_a_tool_call_whose_arguments_are_no_object_is_one_line(what, value):
    from fuzzkit.retention import results_seeds

    s, m = first_call(json.loads(results_seeds()["airline_ja"]))
    case, name = results_case(lambda d: _call(d).update({what: value}))
    said = refused(case, seconds=10)
    assert said.strip().endswith(f"{name}: simulations[{s}].messages[{m}].tool_calls[0]: needs a name and arguments "
                                 "(an object)"), said


@pytest.mark.parametrize("value,what", [("a\x07b", "control character U+0007 at character 2"),
                                        ({"deep": "@@"}, "nested deeper than 64 levels")])
def test_a_tool_argument_a_trace_cannot_hold_is_refused_with_its_json_path(value, what):
    from fuzzkit.retention import results_seeds

    s, m = first_call(json.loads(results_seeds()["airline_ja"]))
    case, name = results_case(lambda d: _call(d)["arguments"].update(odd=value))
    data = case.files[name].decode().replace('"@@"', "[" * 100 + "]" * 100)
    case.files[name] = data.encode()
    said = refused(case, seconds=10)
    assert f"{name}: simulations[{s}].messages[{m}].tool_calls[0].arguments.odd" in said and what in said, said


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e309"])
def test_retention_import_temperature_nan_is_refused_in_one_line(value):
    case, _ = results_case(lambda d: None, "--temperature", value)
    said = refused(case, seconds=10)
    shown = repr(float(value))
    assert said == f"error: --temperature {shown}: the agent's temperature is a finite number, 0 or more\n", said


def test_a_transcript_line_of_colons_is_read_in_linear_time():
    """(Found by the fuzzer: `\\W*:\\W*` in the Action pattern made such a line take minutes.)"""
    from fuzzkit.retention import react_seed

    lines = react_seed().split(b"\n")
    item = json.loads(lines[0])
    item["transcript"] += "\nAction" + ":" * 50_000 + "\nAction Input: " + "a" * 100_000
    lines[0] = json.dumps(item).encode()
    outcome = run_case(Case(kind="results", argv=["retention", "import", "--react", "{S}/react.jsonl", "-o",
                                                  "{S}/traces.jsonl"], files={"react.jsonl": b"\n".join(lines)}))
    assert outcome.outcome == "ok" and outcome.seconds < 5, (outcome.outcome, outcome.seconds, outcome.detail)


def test_analyze_without_a_pair_names_the_files_and_what_was_asked():
    from fuzzkit.retention import trace_seed

    case = Case(kind="traces", argv=["retention", "analyze", "{S}/traces.jsonl", "--target-lang", "hi"],
                files={"traces.jsonl": trace_seed()})
    said = refused(case, seconds=10)
    assert said.endswith("/traces.jsonl: no language pair with traces on both sides (source 'en', target 'hi')\n")
