"""One module per subcommand; each exposes `register(app)`. They parse, call `nanodream.api`, and render its report.

`cli` imports every one of these modules on every invocation (`--help` and `status` included), so they import
`nanodream.api` inside the command function, and types from it only under TYPE_CHECKING: start-up then pays only
for the command that runs (bench/startup.py; tests/commands/test_cli.py checks what `status` imports). Nothing below the
API is theirs to import (tests/test_architecture.py).
"""
