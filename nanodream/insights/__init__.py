"""Insights: connections a run proposes between what it just learned and what was known (second-order dreaming).

Each insight is a record, `memory/insights/<name>.md` (records.py), citing its sources by reference (refs.py):
a memory or archive line by its text, a skill, a commit, or history entries by session key. They are tracked in
the memory's repository but are never facts: hosts never load them, they count against no cap, and nothing of
them is written into SOUL.md, USER.md, MEMORY.md or a skill. A person or host decides their fate (proposed,
reinforced, stale, rejected, promoted); promoting only appends a history entry the next dream judges.

The phases that read and write them — reflect, re-evaluate, connect — are passes of the declared run
(run/pipeline.py); their work lives here: reflect.py, reevaluate.py, and connect through generator.py (no
model) or session.py (a model with two tools of its own, tools.py), both held to the rules of proposals.py.
"""
