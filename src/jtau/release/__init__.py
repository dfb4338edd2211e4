"""`jtau release`: the J-tau dataset and jtau's wheel, built reproducibly.

- build.py: the release folder (dataset, requirements, checksums) and the installed mode's inputs
- card.py: the dataset card
- wheel.py: jtau's wheel, byte-identical from the same sources
"""
