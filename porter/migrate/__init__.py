"""`tileport migrate` / `tileport analyze`: port a whole kernel tree, cached and resumable.

discover (what is in SRC) -> cache (what is already known) -> worker (convert one file or
verify one kernel in a child process with a time limit) -> ownership (write only what tileport
owns, never inside SRC) -> model (per-file and per-kernel records, the JSON schema) -> reports
(terminal summary, JSON, Markdown, HTML). runner.py drives them, progress.py shows the run,
compdb.py reads compile_commands.json, command.py is the CLI glue.
"""
