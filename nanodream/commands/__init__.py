"""One module per subcommand; each exposes `register(app)`. They parse, call the core, and render."""
