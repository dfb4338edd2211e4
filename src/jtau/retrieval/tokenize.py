"""Japanese tokens for BM25: bigrams of kanji and katakana (chosen on measurements:
scripts/benchmarks/bench_tokenizers.py).

`tokenize(text)` gives the tokens of `NFKC(text).lower()` (full-width ＡＢＣ１２３ are abc123,
half-width ｶﾀｶﾅ is カタカナ):

- **kanji and katakana runs** (with ー, 々, 〆): every overlapping character bigram of the run
  (手数料 -> 手数, 数料; クレジットカード -> クレ, レジ, ..., ード); a run of one character is one
  token (円, 額);
- **Latin and digit words**, whole as written: tool names (`open_bank_account_4821`), codes
  (`9k2x7m4p1n8q3r5t6a`), numbers with their separators (`1,000,000`, `2.75`);
- everything else separates tokens and is dropped: spaces, punctuation, Markdown, and hiragana
  (particles, okurigana, auxiliaries: 口座を開設する -> 口座, 開設).

Why hiragana separates: on the measurement sample, bigrams over all Japanese characters found the
same documents (within one query of 60 titles and of 30 questions) with 2.2 times the tokens, and
built their index in 2.1x the time of tau2's English index; kanji/katakana bigrams take 1.4x
(the bound set for the index: 1.5x).  Morphological analysers (MeCab/UniDic, Sudachi) found no
more and cost 4-14x (the README's table).

The result is a bag of tokens (BM25 counts them; their order is not meaningful).  Queries and
documents go through the same function.  Nothing is added that the text does not contain: no
readings, no lemma glosses (UniDic's `カード-card`), no translations, so an English query matches
a Japanese document only through the Latin words the document itself prints.

Pure Python, no dictionary, nothing loaded.  Two shortcuts, both checked against the plain
definition by tests/retrieval/test_retrieval_tokenize.py: text made only of characters whose NFKC form
cannot change a token (ASCII, kana, kanji, Japanese and full-width punctuation) skips NFKC, which
costs more than the tokenizing; bigrams come from two C-level regex scans (the even and the odd
positions of each run) instead of a Python loop per run.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["tokenize", "TOKENIZER", "KANJI_KATAKANA", "LATIN_WORD"]

TOKENIZER = "kanji-katakana bigrams"  # the name the benchmark and the README use

KANJI_KATAKANA = "ァ-ヺー-ヾ々〆㐀-䶿一-鿿豈-﫿"
LATIN_WORD = r"[0-9a-z]+(?:[_.,\-][0-9a-z]+)*"

# Characters tokenize() may see without NFKC: NFKC leaves them as they are, or they separate tokens
# before and after it (（ is (, ： is :, … is ...; the knowledge base's × → ÷ — ‑ ’ ≈ among them).
# Not here: full-width letters, digits and the ，．－＿ that join Latin words, half-width katakana,
# combining marks, compatibility characters.
_NO_NFKC = ("\t\n\r -~\u3000、。「」『』【】〜・×→÷—–‑’…≈−"
            "ぁ-ゖゝゞァ-ヺー-ヾ々〆㐀-䶿一-鿿"
            "！-＋／：-＠［-＾｀｛-～")
_NEEDS_NFKC = re.compile(f"[^{_NO_NFKC}]")
_K = KANJI_KATAKANA
# Even bigrams, lone characters and Latin words in one scan; the odd bigrams of each run in another.
# (a run's character is matched once, then either its neighbour or, alone, looked around: most
# positions fail on the first class)
_EVEN = re.compile(f"[{_K}](?:[{_K}]|(?<![{_K}][{_K}])(?![{_K}]))|{LATIN_WORD}")
_ODD = re.compile(f"[{_K}](?<=[{_K}]{{2}})[{_K}]")  # a bigram whose first character follows another


def tokenize(text: str) -> list[str]:
    """The BM25 tokens of `text` (a document or a query)."""
    if _NEEDS_NFKC.search(text):
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    return _EVEN.findall(text) + _ODD.findall(text)
