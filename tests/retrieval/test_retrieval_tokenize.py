"""The Japanese BM25 tokenizer (jtau.retrieval.tokenize): its definition, its two speed
shortcuts against that definition, and that it adds nothing English.  Pure Python: runs on both
tau2 runtimes."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from jtau.retrieval.tokenize import _NO_NFKC, KANJI_KATAKANA, LATIN_WORD, tokenize

SAMPLE = Path(__file__).parents[1] / "data" / "banking_ja_sample"
RUN = re.compile(f"[{KANJI_KATAKANA}]+|{LATIN_WORD}")


def reference(text: str) -> list[str]:
    """The plain definition: NFKC, lower case, each kanji/katakana run's bigrams (one character:
    itself), Latin words whole; a loop per run, no shortcut."""
    tokens = []
    for run in RUN.findall(unicodedata.normalize("NFKC", text).lower()):
        if len(run) == 1 or run[0].isascii():
            tokens.append(run)
        else:
            tokens += [run[i:i + 2] for i in range(len(run) - 1)]
    return tokens


def sample_texts() -> list[str]:
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((SAMPLE / "documents").glob("*.json"))]
    questions = json.loads((SAMPLE / "queries.json").read_text(encoding="utf-8"))
    return [d["content"] for d in docs] + [d["title"] for d in docs] + [q[k] for q in questions for k in ("ja", "en")]


def test_examples():
    assert tokenize("口座を開設する") == ["口座", "開設"]
    assert Counter(tokenize("クレジットカードの手数料は1,000円")) == Counter(
        ["クレ", "レジ", "ジッ", "ット", "トカ", "カー", "ード", "手数", "数料", "1,000", "円"])
    assert tokenize("Use open_bank_account_4821 now.") == ["use", "open_bank_account_4821", "now"]
    assert Counter(tokenize("ＡＢＣ１２３（ｶｰﾄﾞ）")) == Counter(["abc123", "カー", "ード"])  # NFKC
    assert tokenize("") == [] and tokenize("。、！？ です") == []


def test_the_shortcuts_give_the_plain_definition_on_the_sample():
    texts = sample_texts()
    assert len(texts) > 150
    for text in texts:
        assert Counter(tokenize(text)) == Counter(reference(text)), text[:60]


def test_the_shortcuts_give_the_plain_definition_on_random_text():
    """Mixed scripts, full- and half-width forms, combining dakuten, compatibility characters: the
    NFKC shortcut and the even/odd regex scans change no token."""
    alphabet = ("口座開設手数料円額々〆" "カードバーチャルヴヽヾー" "をのはがでするいま" "abcXYZ019_.,-"
                " \n\t。、「」・〜（）：！％＆＃　" "ＡＢＣａｂｃ０１２，．－＿" "ｶｰﾄﾞﾊﾟｿｺﾝ" "\u3099\u309a"
                "①㈱㎡℃ⅡＫ﨑福鄕" "₂²…‥")
    rng = random.Random(20)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert Counter(tokenize(text)) == Counter(reference(text)), repr(text)


def test_characters_that_skip_nfkc_cannot_change_a_token():
    """Each character tokenize() lets through without NFKC is left as it is by NFKC (and combines
    with nothing), or separates tokens both before and after NFKC."""
    chars, i = [], 0
    while i < len(_NO_NFKC):
        if i + 2 < len(_NO_NFKC) and _NO_NFKC[i + 1] == "-":
            chars += [chr(c) for c in range(ord(_NO_NFKC[i]), ord(_NO_NFKC[i + 2]) + 1)]
            i += 3
        else:
            chars.append(_NO_NFKC[i])
            i += 1
    for char in chars:
        normal = unicodedata.normalize("NFKC", char)
        if normal == char:
            assert not unicodedata.combining(char), hex(ord(char))
        else:  # a separator that stays a separator
            assert not RUN.search(char.lower()) and not RUN.search(normal.lower()), hex(ord(char))
            assert normal not in ",.-_", hex(ord(char))


@pytest.mark.parametrize("text", ["カード", "クレジットカードの紛失", "口座維持手数料", "海外事務手数料", "年間利回り"])
def test_no_english_is_added(text):
    """No reading, gloss or translation: a Japanese text without Latin letters has no Latin token
    (UniDic's lemma of カード is 'カード-card'; this tokenizer never emits 'card')."""
    assert all(not token.isascii() for token in tokenize(text))


def test_latin_tokens_are_only_the_latin_words_of_the_text():
    for text in sample_texts():
        latin = {token for token in tokenize(text) if token.isascii()}
        assert latin <= set(re.findall(LATIN_WORD, unicodedata.normalize("NFKC", text).lower()))
