"""banking_knowledge (tau2-bench 1.0.1 only): spec.yaml, rules.yaml, tools.ja.yaml, messages.ja.yaml
(its tools' fixed answers in Japanese), and

- environment.py: J-tau banking inside tau2 (its arms' environments, the Japanese knowledge base's search)
- boundary.py: the locale boundary around every tool call (J-tau's values in, tau2's out)
"""
