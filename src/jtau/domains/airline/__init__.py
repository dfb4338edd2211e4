"""airline: spec.yaml, rules.yaml, tools.ja.yaml, db.schema.json, and

- identities.py: the db's arithmetic identities (reservation payments), checked by `jtau validate`
- environment.py: J-tau airline inside tau2 (its arms' environments)
"""
