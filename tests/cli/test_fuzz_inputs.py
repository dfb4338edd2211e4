"""Every input kind jtau reads, however malformed, ends cleanly: property-based
fuzzing with a small budget -- a few derandomized Hypothesis cases per kind, each a valid input
of the real data mutated and run through the real command (tests/fuzzkit).  A case ends in a
success whose outputs read back, or in exit 1/2 with one line naming the file and the line or
JSON path, nothing written, in bounded time and memory.  The long run is tests/fuzzkit."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import fuzzkit

# one worker warms up and draws the retention seeds (real scripted tau2 runs, ~10 s) for every fuzz test
pytestmark = pytest.mark.xdist_group("fuzz")

EXAMPLES = 6  # cases per kind here (each runs the command: ~0.5 s); tests/fuzzkit runs thousands

settings.register_profile("fuzz-ci", max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def warm():
    fuzzkit.warm_up(full=False)


@pytest.mark.parametrize("name", list(fuzzkit.KINDS))
def test_every_input_kind_ends_in_a_correct_output_or_one_clear_error(name):
    kind = fuzzkit.KINDS[name]

    @settings(settings.get_profile("fuzz-ci"))
    @given(case=kind.strategy)
    def one_case(case):
        outcome = fuzzkit.run_case(case)
        assert outcome.outcome in ("ok", "refused"), (
            f"{outcome.outcome} (exit {outcome.exit_code}): {outcome.note}\n{outcome.detail}")

    one_case()


def test_a_new_input_kind_is_one_registration():
    """As the retention inputs (tau2 results, ReAct transcripts, traces: fuzzkit/retention.py) did."""
    from hypothesis import strategies as st

    from fuzzkit.kinds import KINDS, Kind, project_case, register

    case = project_case("example", ["maps", "check"])
    try:
        register(Kind("example", "an example kind", st.just(case)))
        assert "example" in fuzzkit.KINDS  # tests/fuzzkit --kind example runs it, its row in the table
        outcome = fuzzkit.run_case(case)
        assert outcome.outcome == "ok", outcome.detail
    finally:
        KINDS.pop("example", None)


def test_the_limits_doc_states_each_limit_of_the_code():
    """docs/LIMITS.md (linked from the README) gives the value of every limit in jtau/limits.py."""
    from jtau.util import limits

    doc = (fuzzkit.kinds.ROOT / "docs" / "LIMITS.md").read_text()
    assert "docs/LIMITS.md" in (fuzzkit.kinds.ROOT / "README.md").read_text()
    stated = {"MAX_FILE_BYTES": "64 MB", "MAX_YAML_BYTES": "4 MB", "MAX_DEPTH": "64 levels",
              "MAX_SEGMENT_CHARS": "10,000 characters", "MAX_AMOUNT_DIGITS": "15 digits",
              "MAX_NUMBER_DIGITS": "4,300 digits", "MAX_ERROR_LINE": "1,000 characters", "MAX_NAME_BYTES": "255 bytes",
              "MAX_PATH_BYTES": "4,095 bytes", "MAX_COUNT": "4,294,967,295 (32 bits)"}
    names = {name for name in vars(limits) if name.startswith("MAX_")}
    assert names == set(stated), "a new limit: state it in docs/LIMITS.md and here"
    for name, text in stated.items():
        number = int(text.split()[0].replace(",", ""))
        value = getattr(limits, name)
        assert value in (number, number * 2**20), (name, value, text)
        assert text in doc, (name, text)
