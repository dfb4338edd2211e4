"""Stage 4b: translation.  The translation memory (`tm`) answers what it holds; the
machine-translation client (`client`) fills the misses through any OpenAI-compatible
endpoint, and every answer passes `check` before it reaches the memory.

- tm.py: the translation memory: one JSON Lines file per domain, committed, entries with a status
- engine.py: each source template's target: the memory's entry, a new translation, or the source itself
- client.py: machine translation through any OpenAI-compatible chat-completions endpoint, batched, retried
- prompt.py: what the model is asked: each register's style, the placeholder legend, glossary hints, the JSON answer
- check.py: is a model's answer a usable translation of a template?  every problem named
- exchange.py: `jtau tm export | import`: segments out to translators and reviewers, their translations back in
- catfiles.py: the exchange in the formats CAT tools speak: PO (through translate-toolkit), XLIFF 1.2, TMX 1.4
- xmlcat.py: XLIFF 1.2 and TMX 1.4 written and read with the standard library, placeholders as inline codes
- carry.py: `jtau tm carry`: the memory carried over to re-segmented templates
"""
