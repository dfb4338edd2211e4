"""Stage 3: the structured swap.  `Localizer` converts one value of a kind (a given name,
a user id, an airport, an amount ...) through the maps; `structured` applies it to every
path the domain rules name in the db and in the tasks' tool calls."""
