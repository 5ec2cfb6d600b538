"""One module per subcommand; each exposes `register(app)`. They parse, call the core, and render.

`cli` imports every one of these modules on every invocation (`--help` and `status` included), so they import
the core modules a command needs inside the command function, and types only under TYPE_CHECKING: start-up
then pays only for the command that runs (bench/startup.py; tests/test_cli.py checks what `status` imports).
"""
