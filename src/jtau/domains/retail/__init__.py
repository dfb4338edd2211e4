"""retail: spec.yaml, rules.yaml, tools.ja.yaml, db.schema.json, and

- identities.py: the db's arithmetic identities (item prices, order payments) and distinguishable catalog variants
- environment.py: J-tau retail inside tau2 (its arms' environments)
"""
