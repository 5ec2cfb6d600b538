"""Memory that travels: `nanodream sync` and `init --from` (docs/sync.md).

nanodream fetches the remote's memory, merges it with its own three-way merge (versioning/merge.py), guards what
arrives and what leaves, and lands the result through the transaction (memory/transaction.py) — never `git merge`.
"""
