"""nanodream inside agent hosts (Claude Code, Codex, Cursor): the `/dream` command a host runs, and `hosts install`,
which writes each host's MCP configuration and command file, merging into what is there, never replacing it."""
