"""A validation finding (validate/finding.py) prints as the place and the message."""

from __future__ import annotations

from jtau.validate.finding import WARNING, Finding, placed


def test_a_finding_prints_its_file_path_line_and_message():
    assert str(Finding("money", "1 != 100 x 2", "db.json", "users.u1.amount")) == \
        "db.json: users.u1.amount: 1 != 100 x 2"
    assert str(Finding("language", "English left: please", "policy.md", line=5, severity=WARNING)) == \
        "policy.md:5: English left: please"
    assert str(Finding("language", "untranslated: Please", "doc.json", "content", 3)) == \
        "doc.json: content:3: untranslated: Please"
    assert str(Finding("tasks", "task ids differ from the source", "tasks.json")) == \
        "tasks.json: task ids differ from the source"
    assert str(Finding("identity", "orders.x: paid 1 != 2")) == "orders.x: paid 1 != 2"


def test_a_lower_checks_text_keeps_its_place():
    texts = ["db.json: products.1.name: schema: 42 is not of type 'string'", "elsewhere: no file"]
    found = placed("schema", texts, "db.json")
    assert [str(f) for f in found] == texts
    assert (found[0].file, found[0].message) == ("db.json", "products.1.name: schema: 42 is not of type 'string'")
    assert found[1].file == ""
