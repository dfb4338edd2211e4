"""Stage 3: the structured swap of every entity and amount the domain rules name in the db and in
the tasks' structured fields.

- localizer.py: `Localizer`: one source value of a kind (a name, a user id, an airport ...) converted through the maps
- structured.py: the rules applied to the db and the tasks' tool calls; unmapped values collected as problems
- money.py: exact money conversion with Decimal, never float; a result that is not whole is an error
- notations.py: US notations and J-tau's (MM/DD/YYYY dates, money strings, decimal amounts, clock times)
"""
