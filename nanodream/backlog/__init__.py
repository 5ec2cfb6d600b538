"""The history backlog: entries by position, dead letters, and entries set aside in quarantine."""
