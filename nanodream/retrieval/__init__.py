"""`nanodream recall`: lexical search over memory lines, skills and the archive, for hosts that stop loading it all.

documents.py turns files into documents, index.py ranks them with bm25s, cache.py keeps the index while the
files are unchanged, asof.py builds one of memory as it stood on a day, api.py is what hosts and the command
call. Only index.py, cache.py and asof.py import bm25s (the `recall` extra), and api.py imports them first, so
a missing extra is reported before any file is read.

Not named `recall`: importing a subpackage sets it as an attribute of `nanodream`, which would shadow the
lazily resolved `nanodream.recall()` function.
"""
