"""Plumbing every layer may use; none of it knows a domain, an arm or a stage.

- files.py: atomic writes, all-or-nothing folder replacement, stable JSON
- limits.py: the bounds on what jtau reads (bytes, depth), decoding with a clear error
- jsonpath.py: dotted paths into JSON (`users.*.name`)
- yamlfile.py: YAML that people and the tool both edit (ruamel), read with line numbers in errors
- secrets.py: keys refused in llm args, redacted in records and error messages
- gcpause.py: the cyclic garbage collector paused around bulk JSON work, and kept off what is loaded
- listing.py: short listings for one-line messages
- options.py: an `--*-llm-args` option's JSON object
- processes.py: work on several items at once in worker processes
- endpoint.py: an OpenAI-compatible endpoint: its settings, retries with backoff, the URL shown and the key masked
"""
