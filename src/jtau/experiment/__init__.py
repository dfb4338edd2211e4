"""`jtau experiment`: the cross-lingual experiment J-tau exists for, end to end.

- plan.py: what an experiment runs (domains x arms x customers x tasks x trials), its seeds
- estimate.py: what a plan will run (`--dry-run`) and, from an earlier experiment, what it will cost and take
- runner.py: the plan through tau2's own per-task runner, one file a simulation, resumable
- load.py: an experiment folder read back as retention traces
- scripted.py: scripted agent, customer and judge on 127.0.0.1 (no model), with planted deviations
- calibrate.py: a scripted experiment whose numbers are known before it runs

The numbers (reward, retention, failures, diagnostics, the per-task view) are computed by
`jtau.retention`, the same for an experiment folder and for tau2 results a researcher brings.
"""
