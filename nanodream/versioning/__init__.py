"""The memory's own git history: the repository, commit messages, log/show and restore."""
