"""Every domain folder (src/jtau/domains/<d>/) has what a domain needs, and every "module:attr"
string of its spec resolves: adding a domain is adding a folder."""

from __future__ import annotations

import importlib.util

import pytest

from jtau import domains
from jtau.domains import DomainSpec
from jtau.rules import load_rules

NEEDED = ("__init__.py", "spec.yaml", "rules.yaml", "environment.py", "tools.ja.yaml")


def tau2_has(spec: DomainSpec) -> bool:
    try:
        return importlib.util.find_spec(f"tau2.domains.{spec.name}") is not None
    except ImportError:
        return False


def problems(spec: DomainSpec) -> list[str]:
    """What is wrong with a domain's folder and spec: a missing file, a string that resolves to nothing."""
    found = [f"{spec.name}: no {name}" for name in NEEDED if not spec.path(name).is_file()]
    strings = [spec.entry.identities]
    if tau2_has(spec):  # what imports tau2's domain: only where the installed tau2 has it
        strings += [spec.entry.ja, spec.entry.arm, spec.entry.verify_options, *spec.db_models.values(),
                    *(v.tau2_environment for v in spec.variants)]
    for target in filter(None, strings):
        try:
            domains.resolve(target)
        except (ImportError, AttributeError, ValueError) as exc:
            found.append(f"{spec.name}: {target}: {type(exc).__name__}")
    rules = load_rules(spec.name)
    found += [f"{spec.name}: no schema {name}" for part, name in rules.schemas.items()
              if not rules.schema_path(part).is_file()]
    return found


@pytest.mark.parametrize("name", domains.names())
def test_every_domain_folder_is_complete_and_its_spec_resolves(name):
    spec = domains.spec(name)
    assert problems(spec) == []
    assert spec.variants[0].name == name  # tau2's first registration is the domain itself
    assert spec.registry_name == f"{name}_ja"


def test_the_specs_list_the_four_domains_in_their_order():
    assert domains.listed() == ["airline", "retail", "telecom", "banking_knowledge"]
    assert domains.tau3_only() == ["banking_knowledge"]
    assert len({domains.spec(n).order for n in domains.names()}) == len(domains.names())
    assert domains.source_of("telecom-workflow_ja-text")[0] == "telecom"
    assert domains.source_of("telecom_full_en")[0] == "telecom"
    assert domains.source_of("airline") is None  # tau2's own name: no arm


def test_a_misspelled_entry_and_a_missing_file_are_found(tmp_path):
    spec = domains.spec("airline")
    bad = spec.model_copy(update={
        "entry": spec.entry.model_copy(update={"identities": "jtau.domains.airline.identities:IDENTITEIS"}),
        "folder": tmp_path})
    (tmp_path / "spec.yaml").write_text("")
    found = problems(bad)
    assert "airline: jtau.domains.airline.identities:IDENTITEIS: AttributeError" in found
    assert "airline: no rules.yaml" in found and "airline: no spec.yaml" not in found


def test_an_unknown_domain_names_the_known_ones():
    from jtau.errors import InputError

    with pytest.raises(InputError, match="unknown domain 'hotel'; known: airline, banking_knowledge, retail"):
        domains.spec("hotel")


def test_a_spec_with_an_unknown_key_is_refused(tmp_path):
    from jtau.errors import InputError
    from jtau.util.yamlfile import load_yaml

    text = domains.spec("retail").path("spec.yaml").read_text() + "shares_recrods: true\n"
    (tmp_path / "spec.yaml").write_text(text)
    with pytest.raises(InputError, match="spec.yaml: invalid content") as refused:
        load_yaml(tmp_path / "spec.yaml").parse(DomainSpec)
    assert [d for d in refused.value.details if "shares_recrods: Extra inputs are not permitted" in d]
