"""`jtau retention`: does an agent take the same route in Japanese as in English?

Cross-lingual policy retention after "Actions Speak Louder than Words" (COLM 2026):

    traces.py     the trace file format (JSON Lines, one rollout a line)
    importers.py  tau2 results files and ReAct transcripts -> traces
    canonical.py  actions -> comparable tokens; target-language arguments mapped back
                  through the entity maps (a Japanese user id, yen, airport -> the source one)
    analysis.py   per cell: Iwithin, Icross, retention, chance floor, length-matched and
                  chance-corrected estimates, bootstrap intervals, parse failures, tool shares
    report.py     the rich table, --json and --plot
"""
