"""The Japanese measurement sample (tests/data/banking_ja_sample) is faithful in form to its English
originals: the same documents, Markdown line for line, tool names verbatim, no dollar left.  Reads
the originals from tau2-bench 1.0.1's data; skipped where it is not installed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jtau.runtime.compat import is_tau3

pytestmark = pytest.mark.skipif(not is_tau3(), reason="tau2-bench 1.0.1 only: its data holds the English originals")

SAMPLE = Path(__file__).parents[1] / "data" / "banking_ja_sample"
MARK = re.compile(r"^(#+ |\s*- |\s*\d+\. |\|)?")


def originals() -> Path:
    from tau2.domains.banking_knowledge.utils import KNOWLEDGE_DOCUMENTS_DIR

    return Path(KNOWLEDGE_DOCUMENTS_DIR)


def shape(text: str) -> list[str]:
    """Each line's Markdown mark (heading, list item, numbered step, table row) or blank."""
    return [MARK.match(line).group(0).strip() if line.strip() else "" for line in text.strip("\n").split("\n")]


def pairs():
    for path in sorted((SAMPLE / "documents").glob("*.json")):
        yield json.loads(path.read_text(encoding="utf-8")), json.loads((originals() / path.name).read_text())


def test_sixty_documents_of_sixty_categories():
    docs = [ja for ja, _ in pairs()]
    assert len(docs) == 60 and len({re.sub(r"_\d+$", "", d["id"]) for d in docs}) == 60


def test_the_translation_keeps_the_form_of_the_original():
    for ja, en in pairs():
        assert ja["id"] == en["id"]
        assert shape(ja["content"]) == shape(en["content"]), ja["id"]
        for cited in re.findall(r"`([^`]+)`", en["content"]):
            assert cited in ja["content"], (ja["id"], cited)
        for tool in re.findall(r"\b[a-z]+(?:_[a-z]+)+_\d{4}\b", en["content"]):
            assert tool in ja["content"], (ja["id"], tool)
        assert "$" not in ja["content"] + ja["title"], ja["id"]
        assert re.search("[ぁ-んァ-ヶ一-龯]", ja["title"]), ja["id"]


def test_questions_name_sample_documents():
    ids = {ja["id"] for ja, _ in pairs()}
    questions = json.loads((SAMPLE / "queries.json").read_text(encoding="utf-8"))
    assert len(questions) == 30 and {q["id"] for q in questions} <= ids and len({q["id"] for q in questions}) == 30
