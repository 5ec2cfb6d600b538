"""What each command prints with `--json`, and each MCP tool answers: the reference page docs/json.md.

Each section names the report type behind an output; its keys and their types come from that type's declaration
(vocab.Shape on the dataclass, api/schema.py), the words around them are written here. `python -m
nanodream.api.outputs` writes docs/json.md and nanodream/api/schemas.json; tests/api/test_json.py fails when either
disagrees with the declarations, and runs every command to check it prints exactly the keys listed.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanodream.api import reports
from nanodream.api.schema import STORED, keys_of, schema_of, schemas

PAGE = Path(__file__).resolve().parents[2] / "docs" / "json.md"


@dataclass(frozen=True)
class Keys:
    """One object's keys on the page: `label` starts the line ("Keys:", "Keys of a batch:"), `type` names the
    report type (as `nanodream.api` exports it) whose declaration gives them; `untrusted` adds the MCP mark."""

    label: str
    type: str
    about: str = ""
    untrusted: bool = False


@dataclass(frozen=True)
class Section:
    heading: str  # markdown: `run --json`
    about: str
    keys: tuple[Keys, ...] = ()


INTRO = """\
# JSON output

Generated from the report declarations of `nanodream/api/` (`python -m nanodream.api.outputs`, which also writes
`nanodream/api/schemas.json`, the MCP tools' output schemas); do not edit by hand.

Every command that prints something takes `--json` and then prints one JSON document on stdout (nothing
else goes to stdout; progress and notices go to stderr). These shapes are stable: fields may be added,
never renamed or removed. Times are ISO 8601 with an offset. On a usage or other error a command prints
`{"error": "<message>", "exit_code": N}` and exits with that code (see the README's exit codes).

Each section ends with a `Keys:` line: the exact top-level keys (of each element, for a list), each with its
JSON type. They come from the declaration of the report behind the output, the same declaration the JSON is
printed from; `tests/api/test_json.py` also runs every command with `--json` and checks it prints exactly these."""

SECTIONS = (
    Section("`init --json`", "The workspace, the files `init` created (nothing is ever overwritten), and whether it "
            "created the git repository now; with `--from REMOTE`, the remote (`remote`, a password or token in its "
            "URL left out), the commit taken (`fetched`), and the remote's lines that wait for review (`held`) or "
            "were left out (`left_out`).", (Keys("Keys:", "InitReport"),)),
    Section("`sync --json`", """\
- `outcome`: `synced | nothing-to-do | dry-run | failed | refused | busy | blocked`; `exit_code` 0, or 1 when it
  could not complete (the remote unreachable, a push refused, a credential in what would leave: nothing changed
  anywhere), 2 with no such remote or a bad `[sync]` setting.
- `remote` the remote's name and URL (a password or token in it left out), `branch`, `machine` this machine's
  name; `fetched` the remote's commit when read (`null`: an empty remote), `commit` where HEAD moved and `pushed`
  what the remote's branch moved to (each `null` when it did not move, and always for `--dry-run`).
- `local` and `remote_files`: `{path, added, removed}` per file this machine's memory and the remote's changed (or,
  for `--dry-run`, would change); `hand_edits` the files committed first as the person's own.
- `archived`: older values of lines changed on both sides, moved to the archive as replaced; `proposals` how many
  wait in the review lane; `held` and `left_out`: lines from the remote that wait for review or were left out;
  `notes` what else the merge decided; `recovered` what recovering an interrupted sync did first.""",
            (Keys("Keys:", "SyncReport"),)),
    Section("`run --json`", """\
The run report. `trigger`: `manual | cron | slash | schedule | retry | mcp | fleet | host`. `outcome`: `committed |
no-change | nothing-to-do | busy | blocked | refused | failed | model-no-op | misconfigured | dry-run` (`busy`,
`blocked` and `refused`: the write door turned the run away before anything was written, `reason` says why and
`hint` what to do, if anything more; `model-no-op`: the model could not do the job — a tagged fact of the batch is
neither kept nor explained after the corrective question, its edits broke memory, or a cap or loop guard stopped it
— exit 1, the cursor before the first entry with an unaccounted fact (the entries before it may be committed: a
`committed` batch then a `model-no-op` one); `misconfigured`: e.g. the provider's key is not set, exit 2; neither
is ever split or quarantined). `consumed` are cursors, `consumed_lines` history lines (`[first, last]` or `null`);
`commits` shas; `manual_commit` the hand-edit commit made first; `recovered` what finishing an interrupted run did;
`notices` how reading resumed (an upgrade, a rewritten file); `anomalies` and `dead_letters` one line each, with
line numbers; `notable` entries not consumed normally (`{line, cursor, outcome, detail}`; `outcome` `waiting` for
one the built-in rules cannot read, left for a model); `waiting_for_model` how many history entries wait for a
model once the run is over (the built-in rules cannot read them whole; a run with a model takes them first);
`quarantined` lines set aside by this run; `failed_at` `[first, last]` line of the failing batch or `null`; `tidy`
true for `run --tidy`;
`ingest` the pass over the workspace's `[[ingest]]` sources that ran first, in `ingest --json`'s shape (`null`
without sources); `requests` model requests made and `request_bytes` what they sent; `cached_tokens` of
`tokens_in`, those the provider read from its prompt cache (billed at its cache price, which `cost` includes
where litellm knows it); `reasons` the facts
sessions kept out of memory and why (`{fact, reason}`, from the per-fact accounting); `unconfirmed` what sessions'
summaries claim that their diffs do not show; `batches` one object per batch (below). `phases` the insight phases
after the consolidation (below; `null` when none was on, or the consolidation failed or had nothing to do); their
tokens, cost and requests are not in the run's totals. `insights` the insight records this run proposed or changed
(each as `insights show --json` prints it, plus `change`: `proposed | reinforced | stale | followed`), each with
its `sources` as edges (`{ref, reason, weight, relation}`); `back_edges` maps each ref those insights cite to every
insight citing it (`{insight, status, relation, weight, reason}`, rejected ones left out) ([insights.md](
insights.md)). `run -o FILE` writes this same object to FILE (YAML when FILE ends in `.yaml`/`.yml`); `quarantine
retry LINE --json` prints it too.""", (
        Keys("Keys:", "RunReport"),
        Keys("Keys of `phases`:", "PhaseOutcome", """\
`phases`: `ran` the phases that read something, in order; `notes` one line per phase (what it did, or
`connect: skipped (…)` and why); `reflection` what reflect found (as `reflect --json` prints it); `insights` and
`back_edges` as above; `tokens_in`, `tokens_out`, `cached_tokens`, `cost`, `requests` what connect's conversation
spent, apart; `commit` the insights commit (`null` when nothing changed); `diff` a dry run's."""),
        Keys("Keys of a batch:", "BatchOutcome", """\
Each of `batches`: `changes` are lines like `USER.md: modified (+1 -0)`, `warnings` non-blocking guard
findings and the lines the batch left out (`memory/MEMORY.md: left out line 4: Password; …`, `SOUL.md: left
out line 5, an agent rule (exfiltration): '…'`), `capacity` true when the batch failed because a file stayed over
its cap, `blameless` true when it failed for a reason no history entry causes (git refused the commit: the files
were put back; such a batch is never split or quarantined), `diff` the diff of a dry run (empty otherwise),
`proposal` the commit on `refs/nanodream/pending` holding what waits for review (`run --review`, the `review`
setting; `null` otherwise), `requests` the session's model requests and `request_bytes` what they sent,
`oversized` the cap (`tokens` or `calls`) that stopped the session on more than one entry (`""` otherwise: such a
batch is `split`, its entries dreamed again at most half as many at a time,
[scheduling.md](scheduling.md#a-batch-one-session-can-finish)), `unkept` the tagged facts memory does not
hold after the session (kept out for a reason, or lost), `reasons` the `{fact, reason}` for each kept out with a
reason that holds up (the model's, the built-in rules', or "replaced by the batch's own correction"),
`unaccounted` the `{fact, entry_line, problem}` neither kept nor explained (such a batch is `model-no-op` and
never consumed; `problem` says what was wrong, e.g. "its reason 'reason' is a placeholder, not a reason" or "it
landed beside the line it corrects"), `unconfirmed` lines like `the session's summary mentions USER.md; USER.md
did not change` or `the session's summary names Monday, which memory does not hold: the subject is the change
summary instead` (a model's summary that is not words, or names a value no line holds, is dropped: `summary` is
then `""`). `sessions` every session the batch took, in order — with `tool_mode = "auto"`, a tools session and the
structured one that dreamed the batch again — each `{mode, requests, tokens_in, tokens_out, cached_tokens, cost,
seconds, ended, transcript, outcome}`: `mode` `tools | structured | builtin`, `ended` `finished` or `failed: why`,
`transcript` its file under `.nanodream/transcripts/` (`null` when none was kept), `outcome` what became of the
attempt it was part of; the batch's `tokens_in`, `tokens_out`, `cost` and `requests` are their sums, and so are
its commit's `Dream-Tokens` and `Dream-Cost` (a `Dream-Sessions` trailer lists each when there are several)."""),
    )),
    Section("`status --json`", """\
`position` is `{line, offset, cursor}`: how far history.jsonl has been consumed; `notice` says how reading
will resume when that had to be worked out (an upgrade, a rotated or rewritten file — including the
"cannot tell … remove .nanodream/position.json …" stop, when `pending_entries` counts the whole file).
`dead_letters` are unacknowledged malformed lines the file still holds (`{line, reason}`; never a line
of a file rotated away); `entry_outcomes` is `{counts: {outcome: n}, latest: [...]}` (the latest 50); `fill` maps
each active file to `{chars, cap}`; `archive` is `{files, chars}` of `memory/archive/`; `last_dream` the newest
dream commit in `log --json`'s shape (or `null`); `last_success` / `last_failure` the newest matching run record
(the fields of `.nanodream/runs.jsonl`, whose `sessions` lists every session of the run with the `lines` of its
batch, in a batch's `sessions` shape) or `null`; `schedule` the next scheduled run or `null`; `proposals` is
`{pending, conflicted}`: how many review-lane proposals wait on `refs/nanodream/pending`. `ingest` is `{sources,
last_pass, interrupted, error}`: each configured `[[ingest]]` source by its `path` with its watermark (`format`,
`read_files` of `files_now`, `bytes_read`, `messages`, `pending_files` whose size changed since, `last_read`,
`error`, and `files`: up to 100 per-file watermarks `{path, format, offset, size, line, messages, read_at}`, most
recently read first), the last pass that wrote (a line of `.nanodream/ingest/passes.jsonl`) or `null`, and
whether an interrupted pass waits to be finished ([ingest.md](ingest.md)). `insights` counts the records in
`memory/insights/` by status (`proposed`, `reinforced`, `stale`, `rejected`, `promoted`, and `broken` for a file
without a status to read); a run record's `phases` holds the insight phases' own tokens, cost, requests and
commit, apart from the consolidation's ([insights.md](insights.md)). `git_ignored` lists what the
workspace's repository configures that would make git run a program — `{key, origin, runs}`, e.g.
`{"key": "core.fsmonitor", "origin": ".git/config", "runs": "a file-system monitor"}` or a hook
`{"key": ".git/hooks/pre-commit", …}` — none of which nanodream ever runs ([SECURITY.md](../SECURITY.md));
`linked_skills` the skills reached through a symbolic link (`skills/<name>`), which a dream leaves alone.
`waiting_for_model` counts the history entries the built-in rules cannot read and no run has consumed (those a
built-in run passed, recorded in `.nanodream/waiting.json`, and those ingest marked after the position); they are
not in `pending_entries`, and the next run with a model (or a host's dream) takes them first; `waiting_languages`
maps each language to how many of them (`{"es": 2, "ja": 1}`), and `waiting_error` says what is wrong with a record
nanodream cannot read ([builtin-engine.md](builtin-engine.md#what-waits-for-a-model)).
`out_of_date` lists the active lines that still name the old value of a replaced fact, newest change first, at
most 100 ([time.md](time.md)): each `{file, line, text, fact, changed_on, replaced_by, message}`, `message`
reading `USER.md:7: may be out of date since "Lives in Lisbon" changed on 2026-11-02`. `failed_sessions` lists the
sessions a cap stopped on a batch too big whose entries wait for a smaller one, each `{first_line, last_line,
entries, cause, requests, tokens_in, tokens_out, request_bytes, cost, at, run_id, model, start, end}`
([scheduling.md](scheduling.md#a-batch-one-session-can-finish)).""",
            (Keys("Keys:", "StatusReport"),)),
    Section("`ingest --json`", """\
The pass (see [ingest.md](ingest.md)). `outcome`: `ingested | nothing-to-do | dry-run | failed | refused |
busy | blocked`; a path named on the command line that is missing or not a transcript is `refused` with
exit 2 and nothing appended. `added` entries were appended (a dry run: would be), with cursors `cursors`
`[first, last]` (`null` when none); `entries` lists the first 200 as `{cursor, timestamp, session_key,
content}` (`cursor` is `null` in a dry run); `messages` new messages were taken in, `duplicates` were read
again and recognised, `left_out` were of roles the source does not take or nanodream's own; `for_model`
counts the person's messages the builtin rules left for a model, whole, in an entry of their own that waits for
one (a language the rules do not read, more than the explicit statements they filed, or a message longer than
a person types, `en` too), by ISO 639-1 code
(`{"zh": 3, "de": 1}`; `{}` with a model extractor or when the rules read every message); `sources` one
object per source (below); `extractor` is `builtin` or the model; `tokens_in`, `tokens_out`, `cost` what the
model extraction spent; `recovered` what finishing an interrupted pass did; `notices` one line each.""", (
        Keys("Keys:", "IngestReport"),
        Keys("Keys of a source:", "SourceReport", "Each of `sources`: the files it holds, those with news, the "
             "messages and entries made of them, the files `skipped` and why, and `error` when it could not be "
             "read at all."),
    )),
    Section("`log --json`", """\
The memory commits, newest first, each in the shape below.

- `kind`: `dream | manual | restore | insights | init | other` (`insights`: a run's insight phases or a decision
  on an insight, [insights.md](insights.md)).
- `files`: `{path, added, removed}` from the diff; `added` and `removed` both `null` for a binary file.
- `history` (`{first, last}`: the host's cursor range), `lines` (`{first, last}`: the lines of history.jsonl
  consumed; `null` for dreams made before positions), `tokens` (`{in, out, cached}`), `run`, `model`: `null` for
  non-dream commits. `cost`: `null` when unknown.
- `tokens.cached`: of `tokens.in`, those the provider read from its prompt cache (the `cached=` of the
  `Dream-Tokens` trailer); `null` for commits made before nanodream recorded it.
- `restores`: for a restore, the full sha it undid. `cursor_reset`: for a `--replay` restore, the cursor it
  set.
- `failed`: what the sessions that failed as too big on a dream's entries cost before it, `{sessions, requests,
  in, out, bytes}` (the `Dream-Failed` trailer); `null` when none did.
- `sessions`: for a dream whose batch took several sessions (auto's tools session, then structured mode), their
  modes in order, from its `Dream-Sessions` trailer; `tokens` and `cost` are then every session's together;
  `[]` otherwise.""", (Keys("Keys:", "LogReport"), Keys("Keys of a commit:", "CommitSummary"))),
    Section("`show --json`", """\
Every field of a `log` commit, plus the whole `message`, the `summary` (the model's words; for other kinds the
body without trailers), the `diff`, and `history_entries`: the consumed entries still in `history.jsonl`
(`{cursor, timestamp, content, session_key, line, offset, end}`; empty when compacted away or for non-dream
commits; a built-in dream's leave out the entries it passed over for a model).""", (
        Keys("Keys:", "ShowReport"),
        Keys("Keys of `show --as-of`:", "MemoryAsOf", """\
`show --as-of DAY [FILE] --json` prints memory files as they stood on that day ([time.md](time.md)): `commit`
the last commit on or before its end (committer date, in the workspace's time zone) and its `time`, both `null`
when memory had no commit by then; `files` one `{path, text, missing}` per file asked (default the three active
files), `missing` true (and `text` `null`) for one that did not exist then. The files follow history's dates as
`why` does: `learned_later` lists (`"path: line"`) the lines a later dream learned from a session of that day or
before, which the files hold; `ended` the lines that commit held that the archive says stopped being true by
then, which they do not. Any valid day is read (one still to come, up to 9999-12-31: memory as it is now); a day
that is not `YYYY-MM-DD`, or a file that is not a memory file, is `{"error": ..., "exit_code": 2}`."""),
    )),
    Section("`restore --json`", """\
- `outcome`: `restored | nothing-to-do | refused | busy | blocked`.
- `mode`: `undo | before`; `replay` whether the cursor was set back so the next dream reads that history again.
- `target` the full sha restored, `target_kind` and `target_subject` what it was; `commit` the new restore commit
  and `manual_commit` the hand-edit commit made first (each `null` when there is none).
- `conflicts`: one line per conflicting file when a restore is refused, naming the lines a later change edited.
- `rejected`: the facts a plain undo of a dream recorded in `memory/rejected.md` (none for `--replay`,
  `--before`, or the undo of a hand edit or a restore).
- `recovered`: what recovering an interrupted earlier run did first, if anything.
- `reason` / `hint`: why it was refused and what to do instead.""", (Keys("Keys:", "RestoreReport"),)),
    Section("`review --json`", """\
A list, oldest proposal first (`[]` when none is pending). `id` is the proposal commit's short sha
(`accept`/`reject` take it, or the `run_id`); `files` `{path, added, removed}`; `state` `pending | conflicted`;
`reason` says why a conflicted one no longer applies ("" otherwise); `held`, for lines a run held back for a
person (any run, `--review` or not: guards.md, "Lines held back for you"), each as `path:line: reason` joined by
`; ` (e.g. `"SOUL.md:7: keeps something from the user"`), "" for an ordinary review proposal.""", (
        Keys("Keys of a proposal:", "Proposal"),
        Keys("Keys of `review accept`:", "ReviewReport", """\
`review accept|reject --json`: `action` (`accept | reject`), `outcome` (`accepted | rejected |
nothing-to-do | refused | busy`), `ids` handled, `commits` made on the branch, `manual_commit` (hand edits
committed first), `rejected` facts recorded, `conflicts` (why an accept was refused), `pending` the chain
afterwards (proposal objects as above), `reason`, `hint`, `exit_code`."""),
    )),
    Section("`forget --json`", """\
- `outcome`: `forgotten | dry-run | refused | busy | blocked`; `entries` the history lines marked as never to be
  consumed again; `removed` the lines only those entries taught (`path:line: text`), `review` the lines
  that also draw on other entries (left for you), `staled` the hypothesis lines among those, marked stale in
  the same commit instead (part of their evidence is gone); `commit` the forget commit (or `null`);
  `transcripts` deleted with `--purge-transcripts`; `turns` how many turns ingest kept of those entries were
  taken out of the turn store (with `--dry-run`: would be); `not_erased` where copies still are (git history, …).""",
            (Keys("Keys:", "ForgetReport"),)),
    Section("`why TEXT|FILE:LINE --json`", """\
- `commit`: the full sha of the commit that wrote the line, or `null` while it is an uncommitted hand edit.
- `kind`: `dream | manual | restore | init | other | uncommitted`.
- `entries`: for a dream, the history entries it consumed that mention the line (`{line, cursor, session_key,
  timestamp, text}`; whole text first, then by the share of the line's words they hold); empty for other kinds or
  when history.jsonl no longer holds them. Nothing matching: `{"error": ..., "exit_code": 1}`.
- The line's life ([time.md](time.md)): `became_true` the day of the history entry that taught it (a replaced
  line: its `from`), `null` when no entry says; `until` the day a replaced line stopped being true and
  `replaced_by` what replaced it (`null` and `""` for a current line); `replaced` the facts this line replaced
  (archive lines naming it as their successor: `{text, since, until, file, line}`); `first_written` for a
  replaced line the commit that first wrote the fact (`{commit, time}`), `null` otherwise. For a replaced line
  `commit`, `time` and `entries` are those of the dream that archived it.
- `insights`: the insights citing the line (`{insight, status, relation, weight, reason}`; rejected ones left
  out), read off the records: nothing is written next to the line ([insights.md](insights.md)).""",
            (Keys("Keys:", "WhyAnswer"),)),
    Section("`prompt --json`", """\
The active prompt: `source` (`built-in` or `prompts/dream.md`), the `path` it is read from, its size and `text`;
`override_state`: `absent | active | empty | symlink | not-a-file`; `override_identical_to_builtin` `null` when
there is no readable override.""", (
        Keys("Keys:", "PromptReport"),
        Keys("Keys of `prompt init`:", "PromptInitReport", "`prompt init --json` prints the file it created "
             "(`null` when refused) and the source it copied."),
        Keys("Keys of `prompt reset`:", "PromptResetReport", "`prompt reset --json` prints whether it removed "
             "the override and the prompt now active."),
        Keys("Keys of `prompt show --rendered`:", "RenderedReport", """\
`prompt show --rendered --json` prints the next request: `system` and `user` (the two messages), `prompt_source`,
`tidy`, `estimated_tokens`, `token_breakdown` (per part), `notes`, and the batch's `first_cursor`, `last_cursor`
and `entries`; with nothing to send, `{"nothing_to_send": "<why>"}`."""),
    )),
    Section("`pin --json`", """\
`outcome`: `pinned | unpinned | nothing-to-do` (the line already was as asked; `reason` says which); `text` the
line as it reads now; `matches` (`{path, line, text}`) the candidates when the text named several lines. A
refusal (no line, several lines, busy, blocked) prints `{"error", "exit_code"}`.""", (Keys("Keys:", "PinReport"),)),
    Section("`hypotheses --json` (and `hypotheses list --json`)", """\
Every line of `SOUL.md`, `USER.md` and `memory/MEMORY.md` carrying a hypothesis marker, in file order. `line` is
1-based; `text` is the line without its bullet and markers; `count` the sightings so far and `needed` what its
`tone` (`strong | mild | neutral`) needs before it is promoted; `stale_since` a `YYYY-MM-DD` or null; `ask_first`
whether it carries `<!-- ask-first -->`. `ref` is what a decision takes.""", (
        Keys("Keys:", "HypothesesReport"), Keys("Keys of a hypothesis:", "HypothesisLine"))),
    Section("`hypotheses reinforce|stale|reject|promote LINE --json`", """\
`LINE` (the API's `line`, also what the MCP server's `hypothesis_resolve` passes on) is the `ref` of a listed
hypothesis, `PATH:LINE` with a 1-based line number; a bare number is accepted when exactly one core file has a
hypothesis on that line. The decision is applied to the line as it is on disk when the command runs (after your
hand edits are committed), so list again after editing by hand: a `ref` names a position, not a text.
`outcome`: `reinforced` (one more sighting) | `promoted` (the marker is gone: `promote`, or a `reinforce` that
reached the threshold) | `stale` | `rejected` (`after` is null; the fact is recorded in `memory/rejected.md`) |
`nothing-to-do` (`stale` on a line already stale). `before` and `after` are the whole line. A `LINE` that names
no hypothesis, or several (`candidates` lists their refs in the API's report), and an unknown decision are
refused with exit 2 and nothing written; busy (75) and blocked (78) as every writer. On the command line a
refusal prints `{"error", "exit_code"}`.""", (Keys("Keys:", "DecisionReport"),)),
    Section("`insights --json` (and `insights list --json`)", """\
A list of the insights in view (every status but `rejected`; `--status S` for one status), by name, each as the
record `memory/insights/<name>.md` holds it ([insights.md](insights.md)): its nine front matter keys, then
`summary`, `what_if`, `possible_outcome`, `rationale`, `decisions` (one dated line each, oldest first) and its
`path`. A file that does not parse is left out of the list (`insights list` says which, and why).""", (
        Keys("Keys of an insight:", "Insight"),
        Keys("Keys of an insight's source:", "Source", "Each of `sources`: `ref` (`FILE: TEXT`, `skill:NAME`, "
             "`commit:SHA` or `session:KEY`), `reason`, `weight` (0-1) and `relation` (`supports | extends | "
             "contradicts | recurs | relates`)."),
    )),
    Section("`insights show NAME --json`", "The one record, as in the list. An unknown name is refused with exit 2.",
            (Keys("Keys:", "InsightReport"),)),
    Section("`insights reinforce|stale|reject|promote NAME --json`", """\
`outcome`: `reinforced | stale | rejected | promoted | nothing-to-do` (the insight already had that status);
`before` and `status` the status it had and has; `commit` the decision's commit; `history_cursor` the cursor of
the history entry a `promote` appended (`[durable]` and the insight's statement, `session_key`
`insight:<name>`; `null` otherwise, and for a promote whose entry an interrupted earlier attempt appended).
An unknown name or decision is refused with exit 2 and nothing written; a promote while the host is writing
history is `busy` (75).""", (Keys("Keys:", "InsightDecisionReport"),)),
    Section("`reflect --json`", """\
Memory's health, read without a model: `near_archive` lines of `memory/MEMORY.md` within 14 days of their archive
date (`{ref, days_left}`); `disagreements` pairs of active lines about one subject where one negates the other or
they give it different numbers (`{first, second, why}`, `why` `negation | number`); `hypotheses` the refs of lines
still marked as hypotheses; `insights` the names of insights waiting for a decision; `dead_letters` one line each;
`out_of_date` active lines that may be out of date since a fact they name changed (`FILE:LINE: may be out of date
since "<fact>" changed on <day>`, [time.md](time.md); the lines `status` lists). A run's `phases.reflection` is
the same object.""", (Keys("Keys:", "ReflectReport"),)),
    Section("`skills --json`", """\
One object per skill, by name. `uses`: sessions of the last 30 days that used it (a session is one
`session_key` on one day; use is a mention in history.jsonl or a record in `memory/skill-usage.jsonl`);
`last_used` a `YYYY-MM-DD` or null; `co_used` the skills used in the same sessions, most shared first;
`at_risk` used in a session of the last 30 days that held a `[correction]` or an outcome other than `ok`;
`thin` fewer than 3 steps or a body under 200 characters; `unused` neither used nor changed in 90 days;
`family` the shared prefix when three skills or more have it (their guide included); `description` null when
the front matter does not parse. The page's `/skills` shows the same rows.""", (
        Keys("Keys:", "SkillsReport"), Keys("Keys of a skill:", "SkillRow"))),
    Section("`quarantine --json` (and `quarantine list --json`)", """\
A list, oldest first. `line`/`offset` identify the entry in history.jsonl (`0`/`-1` for entries set aside
before positions existed); `preview` is the start of its text; `retries` how often `quarantine retry` tried.
`quarantine retry LINE --json` prints the run report of `run --json`.""", (Keys("Keys:", "QuarantinedEntry"),)),
    Section("`history --json` (and `history list --json`)", """\
A list of the malformed lines nobody acknowledged: `raw` is the line as stored (cut at 200 characters,
credentials redacted).""", (
        Keys("Keys:", "DeadLetter"),
        Keys("Keys of `history ack`:", "AckReport", "`history ack --json` prints the lines acknowledged and the "
             "numbers that are no malformed line nanodream knows of (exit 2 when no number was one)."),
    )),
    Section("`slash TEXT --json`", """\
The markdown a host shows, plus the structured result behind it: the run report for `/dream`, a list of
`log` entries for `/dream-log` and `/dream-restore` without a sha, one `show` object for `/dream-log SHA`,
the restore report for `/dream-restore SHA`, the prompt info for `/dream-prompt` (`{"copied_to": path}`
after `/dream-prompt init`); `null` when the command could not be served.""", (Keys("Keys:", "SlashReply"),)),
    Section("`schedule --json`", """\
With `--print-crontab` or `--print-systemd`: one object holding the snippet (`kind` is `crontab` or `systemd`;
`interval_seconds` is `null` for a cron schedule, `cron` is `null` for an interval). While running: one JSON
object per line and per decision: when (`at`), its `kind` (`next | waiting | ran | nothing-to-do | busy |
blocked | failed | stopped`), the `message` the text log prints, and what the decision adds (the next run's
time, a run's outcome and commits, …).""", (
        Keys("Keys:", "ScheduleSnippet"), Keys("Keys of a decision:", "Decision"))),
    Section("`recall QUERY --json`", """\
A list of hits, best first by one score (see [recall.md](recall.md)); no match is `[]` and exit 0. `until` is
the day a replaced fact stopped being true (`YYYY-MM-DD`, a line of `memory/archive/` in the until-form), `null`
for a current one. `source` is `memory` (the active files), `skill`, `archive` or `turn`: a message ingest kept
in the turn store, its `heading` where and when it was said (`said on 2023-05-08 in openai:web-42`), `session`,
`said_on` (`YYYY-MM-DD`) and `speaker` (a named speaker, else `user` or `assistant`); those three are `null`
for the other sources.""", (Keys("Keys:", "Hit"),)),
    Section("`fleet status --json`", """\
Job counts of the queue (`queue` is its name) and, for each workspace whose latest job failed, when and why,
newest first (see [fleet.md](fleet.md)). `fleet enqueue --json` prints what one sweep found: how many
workspaces, those `enqueued`, those `over_quota` and those `skipped` (each `{workspace, reason}`: a link past
the tenant's folder, a repository that asks git to run programs), and the counts of the rest.""", (
        Keys("Keys:", "FleetStatus"),
        Keys("Keys of a failure:", "FleetFailure"),
        Keys("Keys of `fleet enqueue`:", "FleetSweep"),
    )),
    Section("`model check --json`", """\
What the tiny dream on a scratch copy did (README, "Local models"). `tool_mode` is the mode checked (the
setting, `NANODREAM_TOOL_MODE` or `--tool-mode`); `outcome` and `reason` the dream's; `facts` one
`{fact, status, note, file}` per tagged fact of the check's batch (`status` as the accounting says it: `kept`,
`explained`, `unaccounted`, …; `file` the file holding it, `""` when none does); `replaced` whether the line the
correction replaces is gone; `structured_used` whether `auto` fell back to structured mode and that kept the
batch; `native_tool_calls` and `text_tool_calls` the calls made each way; `usable` true only when every fact is
kept and `replaced`; `problems` what failed, one line each; `advice` one line for a person. Exit 0 when usable, 1
when not, 2 on a configuration error.""", (Keys("Keys:", "ModelCheck"),)),
    Section("`eval [CORPUS...] --json`", """\
The evaluation (see [eval.md](eval.md)). `score` is the mean of the scenario scores (0 to 1); `model` the
model that ran; `cost` the USD spent (0 for `builtin`); `stopped` why `--max-cost` ended the run early (`""`
otherwise); `against` is `null`, or with `--against-model`/`--against-prompt` an object with `other` (the
second run, same shape as this one without `against`), `delta` (other − this score) and `scenarios`
(`{name, base, other, delta, changed}`, `changed` the checks whose verdict flipped: `{check, base, other}`).
`ask_coverage` is the mean answer coverage of the `[[ask]]` checks (the share of each answer's words in the
`top_k` hits recall returns: memory and the turns ingest kept, by one score), `baseline_coverage` the same figure
over the transcript's own turns (keeping everything), `memory_coverage` over memory's lines alone (what
consolidation kept), `memory_share` what the dream added to memory as a share of the transcript's text —
each the mean over the scenarios that have asks, `null` when none has ([eval.md](eval.md)). `temporal` reports
the temporal scenarios (those with a `kind` or `as_of` ask) apart from `score`, which leaves them out unless
the corpus holds nothing else: `null` without any, else `{scenarios, score, kinds}`, `kinds` mapping each kind
of question (`current`, `before`, `as-of`, `dependent`) to `{asks, coverage, baseline}`.
`eval -o FILE` writes this same object to FILE.""", (
        Keys("Keys:", "EvalAnswer"),
        Keys("Keys of a scenario:", "ScenarioResult", """\
Each of `scenarios`: `checks` in expect.toml's order (`max_growth_bytes` last), each `{kind, check, passed,
detail}`; `metrics` holds `outcome`, `reason`, `batches`, `entries`, `tokens_in`, `tokens_out`, `cached_tokens`,
`cost`, `seconds` and `bytes_grown` (reported, never scored); a scenario with a transcript adds `ingested` (entries
its ingest added; its tokens and cost are in the totals), one with asks adds `ask_coverage`,
`baseline_coverage`, `memory_coverage`, `memory_bytes`, `transcript_bytes`, `memory_share` and `asks`
(`{question, answer, coverage, baseline, kind, as_of, memory}` each, `memory` the coverage of memory alone;
`kind` is `""` and `as_of` `null` for an ask that has none).
`temporal` is true for a temporal scenario."""),
        Keys("Keys of `eval import-locomo`:", "LocomoReport", "`eval import-locomo --json` prints the scenarios "
             "it wrote, each `{path, asks}`."),
    )),
    Section("`simulate --json`", "Where the scenario was written and how long its history is.",
            (Keys("Keys:", "SimulateReport"),)),
    Section("MCP tool results (`nanodream mcp`)", """\
Each tool of the MCP server ([mcp.md](mcp.md)) answers with the object the matching command prints with
`--json` — `memory_status` as `status`, `memory_log` as `log`, `memory_show` as `show`, `memory_why` as
`why`, `dream_run` as `run`, `dream_restore` as `restore`, `dream_accept`/`dream_reject` as `review
accept|reject`, `memory_pin` as `pin`, `memory_forget` as `forget`, `hypothesis_resolve` as `hypotheses
reinforce|stale|reject|promote` — plus `"untrusted": true`, since each carries text from memory or history; the
tool's output schema says so too. Two have no command of the same shape: `dream_proposals` answers the proposals
of `review --json`, each with its `diff`, and `memory_recall` answers the facts and, apart from them, the
hypotheses (inferred by a dream, never stated: `evidence` is how often history pointed their way) and the
insights the question touches (`related_insights`: connections a run proposed, never facts); asked with `as_of`,
memory as it stood that day (`as_of` and the `commit` it read, `null` when it had none; both `null` for memory as
it is now; no `related_insights` then). `insights_list` answers as `insights list`, `insight_get` as `insights
show`, `insight_resolve` as `insights reinforce|stale|reject|promote`, `insights_run` as `run`.""", (
        Keys("Keys of `dream_proposals`:", "ReviewQueue", untrusted=True),
        Keys("Keys of `memory_recall`:", "RecallReport", untrusted=True),
        Keys("Keys of a related hypothesis:", "HypothesisHit"),
        Keys("Keys of a related insight:", "RelatedInsight"),
        Keys("Keys of `insights_list`:", "InsightsReport", untrusted=True),
    )),
)

SECTIONS += (
    Section("MCP dream session (`dream_begin` … `dream_abort`)", """\
A dream whose model is the host ([mcp.md](mcp.md#the-host-as-the-dreamer)); each result carries `"untrusted":
true`. `dream_begin`: `outcome` `opened` with a `session` id, or `nothing-to-do` with `session` `null` and an empty
`batch` (not an error); `batch` one object per line of the batch's entries, a tagged fact with its `number` (what
`reasons` and the question name; `null` for an ephemeral, untagged or repeated line); `memory` the core files'
texts (`null` for a missing one); `instructions` the active dream prompt; `signals` the rest of what a model's
message holds besides the files, the skills and the batch (line ages, recurring topics, skills' health, the
rejected facts to keep out); `host` the model the commit names (`host/<client>`); `expires_in_s` the idle limit.
`dream_read_file` … `dream_list_archive` answer what the tool said (`text`), `ok`, and `ended` when the call
ended the session (`outcome` then the run's: a path outside the memory files voids it, a cap stops it).
`dream_finish`: `outcome` `asked` with a `question` and the `open` facts (nothing committed, the session still
open, `expires_in_s` again), or the session's end: `committed` with the dream's `sha` (`commits` lists it and an
insights commit after it), `no-change`, or the run's failure; `cursor` is memory/.dream_cursor's value after it,
`kept` how many of the batch's facts memory holds, `open` those neither kept nor explained (`{number, text, note}`:
the cursor stops before the first one's entry), `warnings` what the guards left out, `proposal` the review
lane's commit holding what waits for a person (`review = true`, or a rule held back; `null` when nothing waits).
`dream_abort`: `outcome` `aborted`.""", (
        Keys("Keys of `dream_begin`:", "DreamSession", untrusted=True),
        Keys("Keys of a batch line:", "BatchLine"),
        Keys("Keys of a skill:", "SkillLine"),
        Keys("Keys of `dream_read_file` … `dream_list_archive`:", "DreamToolReport", untrusted=True),
        Keys("Keys of `dream_finish`:", "DreamFinish", untrusted=True),
        Keys("Keys of an open fact:", "OpenFact"),
        Keys("Keys of `dream_abort`:", "DreamAbort", untrusted=True),
    )),
    Section("`hosts install HOST --json`", """\
What the install wrote into the host's files (with `--dry-run`: would write; nothing is written then). `outcome`:
`created` (a file was created or updated), `nothing-to-do` (already installed), `dry-run`; a file that does not
parse refuses the install with nothing written (`{"error", "exit_code"}`, exit 2). Each of `files`: its `path`,
`change` (`created | updated | unchanged | kept`: a `/dream` command file holding other text, left alone) and the
`text` it holds after the install.""", (
        Keys("Keys:", "HostsInstallReport"),
        Keys("Keys of a file:", "Planned"),
    )),
    Section("`hosts list --json`", """\
Each host (`claude-code`, `codex`, `cursor`): its configuration file (`config`), whether it starts nanodream's
server (`installed`), the `workspace` that server serves (`null` when none is named) and whether it is this
command's (`this_workspace`), its `/dream` command file (`command_file`, `null` for a host without one) and whether
it exists (`command`); `problem` says why a configuration could not be read (`""` when it could).""", (
        Keys("Keys:", "HostsReport"),
        Keys("Keys of a host:", "HostState"),
    )),
)

OUTRO = "An error is an MCP tool error (`isError`) whose text is one line; see [mcp.md](mcp.md) for its wording."


def render() -> str:
    """docs/json.md, from the sections above and the declarations they name."""
    lines = [INTRO]
    for section in SECTIONS:
        lines += ["", f"### {section.heading}", "", section.about]
        for keys in section.keys:
            if keys.about:
                lines += ["", keys.about]
            lines += ["", _keys_line(keys)]
    lines += ["", OUTRO]
    return "\n".join(lines) + "\n"


def _keys_line(keys: Keys) -> str:
    schema = schema_of(getattr(reports, keys.type))
    listed = [f"`{key}` ({spoken(schema['properties'][key])})" for key in keys_of(getattr(reports, keys.type))]
    if keys.untrusted:
        listed.append("`untrusted` (true)")
    more = ", and the keys it adds" if schema.get("additionalProperties") else ""
    return f"{keys.label} {', '.join(listed)}{more}"


def spoken(schema: dict[str, Any]) -> str:
    """A JSON schema in a few words: `string`, `integer or null`, `list of string`, `object`."""
    if "anyOf" in schema:
        options = [spoken(option) for option in schema["anyOf"] if option.get("type") != "null"]
        nullable = len(options) < len(schema["anyOf"])
        return " or ".join(options) + (", or null" if nullable and len(options) == 1 and " " in options[0]
                                       else " or null" if nullable else "")
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {spoken(schema.get('items', {}))}" if schema.get("items") else "list"
    return kind or "any"


def write() -> None:
    """Rewrite docs/json.md and schemas.json from the declarations."""
    PAGE.write_text(render(), encoding="utf-8")
    STORED.write_text(json.dumps(schemas(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
    sys.stdout.write(f"wrote {PAGE} and {STORED}\n")
