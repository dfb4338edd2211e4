"""telecom: spec.yaml, rules.yaml, tools.ja.yaml and user_tools.ja.yaml (the phone's), db and user_db
schemas, and

- environment.py: J-tau telecom inside tau2 (both policies, the phone, its arms' environments)
"""
