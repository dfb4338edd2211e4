"""`python -m jtau` is the `jtau` command."""

from jtau.cli import main

main()
