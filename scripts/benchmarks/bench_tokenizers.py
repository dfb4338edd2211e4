"""Which Japanese tokenizer for J-tau's BM25?  Index build time and retrieval quality, measured.

    .venv-tau3/bin/python scripts/benchmarks/bench_tokenizers.py [--sample DIR] [--english DIR] [--repeat N]

Candidates, each with the same normalization (NFKC, lower case) and the same handling of Latin
words (tool names, codes, numbers kept whole), so only the Japanese analysis differs:
    bigram-kanji-kana    jtau.retrieval.tokenize, what the retriever uses: bigrams of kanji and
                         katakana runs, hiragana separates
    bigram-all           bigrams of every Japanese run, hiragana included
    fugashi-surface      MeCab (fugashi) + unidic-lite, surface forms
    fugashi-lemma        MeCab (fugashi) + unidic-lite, base forms, particles and auxiliaries dropped
    sudachi-A / -C       SudachiPy + sudachidict-core, normalized forms, short (A) / long (C) units
Reference rows: tau2 1.0.1's own BM25 (`text.lower().split()`) on the English originals of the
sample, and on the Japanese sample (where it fails).

(a) Index build: tokenize the sample's contents and build BM25 (JaBM25: BM25Okapi's scores, faster
    counting), against tau2's English index (`.split()`, BM25Okapi) of the same documents in
    English: CPU time, median of --repeat rounds, every candidate timed in each round (the ratio
    holds on a busy machine).  The tokenizer's one-time load is its own column.  The target:
    Japanese at most 1.5x English.
(b) Quality, the document itself the one relevant answer, Recall@5/@10 and MRR, on two query sets:
    - titles: every document's title (Japanese titles on the Japanese index, English titles on
      the English one; tau2 indexes content only, so a title is not found by itself);
    - questions: queries.json, 30 customer questions written for 30 of the documents in both
      languages, in other words than the document's.
    The row "JA index, EN queries" shows that English queries find the Japanese documents only
    through the Latin words they print (no bilingual index).

The sample is tests/data/banking_ja_sample/ (60 documents translated for this measurement); the
English originals come from $TAU2_DATA_DIR/tau2/domains/banking_knowledge/documents (tau2-bench
1.0.1), or --english.  Nothing is downloaded: unidic-lite and sudachidict-core carry their
dictionaries in the PyPI packages (`pip install -e '.[bench-tokenizers]'`; a candidate that is not
installed is left out with a note).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from rank_bm25 import BM25Okapi  # noqa: E402

from jtau.retrieval.bm25 import JaBM25, rank  # noqa: E402
from jtau.retrieval.tokenize import _NEEDS_NFKC, KANJI_KATAKANA, LATIN_WORD  # noqa: E402
from jtau.retrieval.tokenize import tokenize as char_bigrams  # noqa: E402  (the chosen one)

LATIN = re.compile(r"[0-9a-z]+(?:[_.,\-][0-9a-z]+)*")
JAPANESE = re.compile(r"[\u3041-\u30ff\u3005\u3006\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def english(text: str) -> list[str]:
    """tau2 1.0.1's BM25 tokens (bm25_indexer.py, bm25_retriever.py)."""
    return text.lower().split()


def morphological(analyze):
    """A tokenizer from a Japanese analyzer: Latin words whole, the text between them analyzed,
    tokens without a Japanese character (punctuation, spaces) dropped."""
    def tokens(text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        start = 0
        for match in LATIN.finditer(text):
            if match.start() > start:
                out += [t for t in analyze(text[start:match.start()]) if JAPANESE.search(t)]
            out.append(match.group())
            start = match.end()
        if start < len(text):
            out += [t for t in analyze(text[start:]) if JAPANESE.search(t)]
        return out
    return tokens


ALL_JAPANESE = "ぁ-ゖゝゞ" + KANJI_KATAKANA
_ALL_EVEN = re.compile(f"[{ALL_JAPANESE}]{{2}}|(?<![{ALL_JAPANESE}])[{ALL_JAPANESE}](?![{ALL_JAPANESE}])|{LATIN_WORD}")
_ALL_ODD = re.compile(f"(?<=[{ALL_JAPANESE}])[{ALL_JAPANESE}]{{2}}")


def all_bigrams(text: str) -> list[str]:
    """Bigrams of every Japanese run, hiragana included (the variant not chosen), built as fast as
    the chosen one (same shortcuts)."""
    if _NEEDS_NFKC.search(text):
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    return _ALL_EVEN.findall(text) + _ALL_ODD.findall(text)


def candidates() -> dict:
    """name -> a function that loads the tokenizer (the load is timed on its own)."""
    def fugashi_surface():
        import fugashi
        tagger = fugashi.Tagger("-Owakati")
        return morphological(lambda text: tagger.parse(text).split())

    def fugashi_lemma():
        import fugashi
        tagger = fugashi.Tagger()
        drop = {"助詞", "助動詞", "補助記号", "空白"}
        # orthBase is the dictionary form as written (never UniDic's "lemma-gloss" with English)
        return morphological(lambda text: [w.feature.orthBase or w.surface for w in tagger(text)
                                           if w.feature.pos1 not in drop])

    def sudachi(mode):
        def load():
            from sudachipy import Dictionary, SplitMode
            tokenizer = Dictionary(dict="core").tokenizer(mode=getattr(SplitMode, mode))
            return morphological(lambda text: [m.normalized_form() for m in tokenizer.tokenize(text)])
        return load

    return {
        "bigram-kanji-kana": lambda: char_bigrams,
        "bigram-all": lambda: all_bigrams,
        "fugashi-surface": fugashi_surface,
        "fugashi-lemma": fugashi_lemma,
        "sudachi-A": sudachi("A"),
        "sudachi-C": sudachi("C"),
    }


def load_documents(folder: Path) -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]


def build_times(builders: dict, repeat: int) -> dict[str, float]:
    """Median CPU seconds of each builder, all of them timed in every round."""
    runs: dict[str, list[float]] = {name: [] for name in builders}
    for _ in range(repeat):
        for name, build in builders.items():
            start = time.process_time()
            build()
            runs[name].append(time.process_time() - start)
    return {name: statistics.median(values) for name, values in runs.items()}


def quality(tokenizer, docs: list[dict], queries: dict[str, str], bm25=JaBM25) -> dict[str, float]:
    """Recall@5, Recall@10 and MRR of `queries` (doc id -> query) on the BM25 index of `docs`."""
    index = bm25([tokenizer(doc["content"]) for doc in docs])
    ids = [doc["id"] for doc in docs]
    ranks = []
    for doc_id, query in queries.items():
        ranked = rank(index.get_scores(tokenizer(query)), ids, len(ids))
        position = [i for i, _ in ranked].index(doc_id)
        # a document listed with score 0 was not found (tau2 lists zero scores in index order)
        ranks.append(position + 1 if ranked[position][1] > 0 else None)
    n = len(ranks)
    at = lambda k: sum(1 for r in ranks if r is not None and r <= k) / n  # noqa: E731
    return {"R@5": at(5), "R@10": at(10), "MRR": sum(1 / r for r in ranks if r) / n}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=Path, default=ROOT / "tests" / "data" / "banking_ja_sample")
    parser.add_argument("--english", type=Path, default=None,
                        help="the English documents folder (default: from $TAU2_DATA_DIR)")
    parser.add_argument("--repeat", type=int, default=101)
    parser.add_argument("--only", action="append", help="measure only these candidates")
    args = parser.parse_args()

    ja_docs = load_documents(args.sample / "documents")
    if not ja_docs:
        print(f"error: no documents in {args.sample}", file=sys.stderr)
        return 2
    english_dir = args.english
    if english_dir is None and os.environ.get("TAU2_DATA_DIR"):
        english_dir = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains" / "banking_knowledge" / "documents"
    en_docs = []
    if english_dir and english_dir.is_dir():
        by_id = {doc["id"]: doc for doc in load_documents(english_dir)}
        en_docs = [by_id[doc["id"]] for doc in ja_docs if doc["id"] in by_id]
    if len(en_docs) != len(ja_docs):
        print("note: English originals not found (set TAU2_DATA_DIR or --english): no English reference rows")
        en_docs = []

    questions = json.loads((args.sample / "queries.json").read_text(encoding="utf-8"))
    ja_texts = [doc["content"] for doc in ja_docs]
    ja_titles = {doc["id"]: doc["title"] for doc in ja_docs}
    ja_questions = {q["id"]: q["ja"] for q in questions}
    en_questions = {q["id"]: q["en"] for q in questions}
    print(f"sample: {len(ja_docs)} Japanese documents, {sum(map(len, ja_texts)):,} characters"
          + (f"; English originals {sum(len(d['content']) for d in en_docs):,} characters" if en_docs else "")
          + f"; {len(questions)} questions")

    tokenizers, loads = {}, {}
    for name, load in candidates().items():
        if args.only and name not in args.only:
            continue
        start = time.perf_counter()
        try:
            tokenizers[name] = load()
        except ImportError as exc:
            print(f"{name}: not installed ({exc.name}): pip install -e '.[bench-tokenizers]'")
            continue
        loads[name] = time.perf_counter() - start

    builders = {name: (lambda t=t: JaBM25([t(text) for text in ja_texts])) for name, t in tokenizers.items()}
    if en_docs:
        en_texts = [doc["content"] for doc in en_docs]
        builders = {"english": lambda: BM25Okapi([english(text) for text in en_texts]), **builders}
    times = build_times(builders, args.repeat)
    english_time = times.get("english")
    print(f"build: CPU time, median of {args.repeat} rounds\n")

    rows = []
    if en_docs:
        rows.append(("tau2 English BM25 (`.split()`), EN docs, EN queries", None, english_time,
                     quality(english, en_docs, {d["id"]: d["title"] for d in en_docs}, BM25Okapi),
                     quality(english, en_docs, en_questions, BM25Okapi)))
    rows.append(("tau2 English BM25 (`.split()`), JA docs, JA queries", None, None,
                 quality(english, ja_docs, ja_titles, BM25Okapi), quality(english, ja_docs, ja_questions, BM25Okapi)))
    for name, tokenizer in tokenizers.items():
        rows.append((f"{name}, JA docs, JA queries", loads[name], times[name],
                     quality(tokenizer, ja_docs, ja_titles), quality(tokenizer, ja_docs, ja_questions)))
        if name == "bigram-kanji-kana" and en_docs:
            rows.append(("bigram-kanji-kana, JA docs, EN queries (English pivot)", None, None,
                         quality(tokenizer, ja_docs, {d["id"]: d["title"] for d in en_docs}),
                         quality(tokenizer, ja_docs, en_questions)))

    print("| tokenizer, index, queries | load ms | build ms | x English | titles R@5 | R@10 | MRR "
          "| questions R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, load_time, seconds, titles, asked in rows:
        ms = lambda s: "" if s is None else f"{s * 1000:.1f}"  # noqa: E731
        ratio = f"{seconds / english_time:.2f}x" if seconds is not None and english_time else ""
        cells = [f"{q[k]:.3f}" for q in (titles, asked) for k in ("R@5", "R@10", "MRR")]
        print(f"| {label} | {ms(load_time)} | {ms(seconds)} | {ratio} | " + " | ".join(cells) + " |")
    if english_time and "bigram-kanji-kana" in times:
        ratio = times["bigram-kanji-kana"] / english_time
        print(f"\ntarget: Japanese index build at most 1.5x English: {ratio:.2f}x, "
              + ("met" if ratio <= 1.5 else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
