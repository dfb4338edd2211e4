"""jtau: localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.

The pipeline's stages are subpackages, in the order they run (pipeline.py runs them):

- source/: find and load the tau2 source data of a domain
- domains/: one folder a domain: its spec, rules, identities, environment, Japanese tool texts, schemas
- rules/: the rules' model: which JSON paths hold which kind of value (each domain's rules.yaml)
- maps/: the reviewed entity maps (entity_maps/*.yaml): names, places, addresses, money
- swap/: structured swap of every entity and amount in db and tasks
- text/: free text -> templates with typed placeholders -> rendered text
- translate/: the translation memory, and machine translation of what it lacks
- validate/: JSON Schemas and the invariants of docs/DESIGN.md section 3, checked against the source
- write/: the manifest and `--check`

Around them:

- pipeline.py: `jtau localize`: the stages in order, nothing written until everything validated
- domain.py: a localized domain in memory, as the pipeline produces it and `jtau validate` reads it
- arms.py: J-tau's four arms, a 2x2 of text language x entity locale
- arm_cache.py: where an arm's files are: `ja` in the repository, the other arms built into a cache
- patches.py: task repairs, JSON Patch files applied to the source tasks before localizing
- glossary.py: one Japanese rendering per English term (enforced, hinted, avoided spellings)
- map_proposals.py: map entries proposed for source entities the maps do not cover (`jtau maps propose`)
- project.py: where jtau keeps its inputs and outputs: a checkout, or the J-tau installed with the package
- dataset_files.py: a domain folder's files, identical ones stored once; the digest that names a folder's data
- changes.py: the text fields whose Japanese changed between two localizations; a run's Markdown report
- review.py: `jtau review`: side-by-side review material, one static HTML page per domain
- errors.py: the two failures the command line reports: `InputError` (exit 2), `CheckFailed` (exit 1)
- cli/: the `jtau` command line, one module per command group
- __main__.py: `python -m jtau`, the `jtau` command
- runtime/: J-tau inside tau2: the localized environments, their registration, `jtau verify`
- experiment/: `jtau experiment`: the cross-lingual experiment through tau2, end to end
- retention/: `jtau retention`: cross-lingual policy retention, rewards and diagnostics of rollouts
- retrieval/: Japanese retrieval (BM25, dense) for banking_knowledge_ja
- release/: `jtau release`: the J-tau dataset and jtau's wheel, built reproducibly
- util/: plumbing every layer may use
"""

__version__ = "0.2.0"
