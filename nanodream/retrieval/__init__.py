"""`nanodream recall`: lexical search over memory lines, skills, the archive and the turns ingest kept, for hosts
that stop loading it all.

documents.py turns files into documents, index.py tokenizes them (bm25s's tokenizer) into postings, bm25.py
scores postings blocks by one BM25, cache.py keeps memory's index while the files are unchanged, turns.py keeps
one block per segment of the turn store, ranking.py ranks memory and turns together, asof.py builds memory's
index as it stood on a day, api.py is what hosts and the command call. Only those modules import bm25s and numpy
(the `recall` extra), and api.py imports them first, so a missing extra is reported before any file is read.

Not named `recall`: importing a subpackage sets it as an attribute of `nanodream`, which would shadow the
lazily resolved `nanodream.recall()` function.
"""
