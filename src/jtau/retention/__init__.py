"""`jtau retention`: does an agent take the same route in Japanese as in English?

Cross-lingual policy retention after "Actions Speak Louder than Words" (COLM 2026):

- traces.py: the trace file format (JSON Lines, one rollout a line)
- importers.py: tau2 results files and ReAct transcripts -> traces
- diagnostics.py: counts read from a conversation (turns, first-turn stops, Japanese messages, judge verdicts)
- usage.py: what a simulation cost: the agent's, the customer's and the judge's money and tokens
- canonical.py: actions -> comparable tokens; the source side's arguments localized through the entity maps
- cell.py: what a cell and each of its levels hold (typed, documented fields)
- analysis.py: per cell: Iwithin, Icross, retention, chance floors, matched and corrected gaps, bootstrap intervals
- corpus.py: `analyze`, a whole corpus's cells: grouped here, or split by groups across forked processes
- arrays.py: a cell's pairs of rollouts on arrays, every task of a side at once, each number as analysis.py's
- outcomes.py: beside retention: rewards and pass^k, answer vs action, each task's routes, each side's diagnostics
- decompose.py: the gap against English split into text language, entity locale and their interaction
- study.py: a corpus' whole analysis (cells, summary, decomposition) for the CLI, the experiment, calibration
- summary.py: the paper-shaped summary over cells: naive and matched rows, across models, per language
- report.py: the rich tables, the JSON file, the plot and the Markdown report
"""
