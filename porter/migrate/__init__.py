"""`tileport migrate` / `tileport analyze`: port a whole kernel tree, cached and resumable.

discover (what is in SRC) -> cache (what is already known) -> worker (convert / verify one file
or kernel in a child process with a timeout) -> ownership (write only what tileport owns) ->
reports (terminal summary, JSON, Markdown, HTML). runner.py drives them.
"""
