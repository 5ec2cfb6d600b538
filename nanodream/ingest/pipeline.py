"""One ingest pass: recover, find what is new in every source, take out what is not the conversation, cut it
into session chunks, extract each, and append the entries with the state that makes them count once.

Files are handled in groups of at most GROUP_BYTES of new data, each appended under its own journal, so a
first pass over years of transcripts holds one group in memory at a time and a crash loses at most the group
in progress (whose messages are read again). A file's watermark moves only once every new message of it is
in history; a chunk that failed leaves its files' watermarks where they were.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import tzinfo
from pathlib import Path

from nanodream.backlog import turns
from nanodream.backlog.turns import Turn, kept_text
from nanodream.config import IngestSource, Settings, zone
from nanodream.ingest import watermarks
from nanodream.ingest.chunking import Chunk, session_chunks
from nanodream.ingest.detect import REGISTRY, Unrecognised, detect, is_document
from nanodream.ingest.extractors.base import Extraction, ExtractionFailed, Extractor
from nanodream.ingest.journal import IngestJournal, IngestJournalUnreadable, recover
from nanodream.ingest.message import Message, history_stamp, in_a_burst, local
from nanodream.ingest.noise import without_nanodream
from nanodream.ingest.reader import FileRead, passed_over, read_new
from nanodream.ingest.report import ENTRIES_SHOWN, IngestReport, SourceReport, record_pass
from nanodream.ingest.seen import Seen
from nanodream.ingest.sources import SourceMissing, list_files
from nanodream.ingest.watermarks import Watermark, WatermarksUnreadable, by_inode, change, moved_here
from nanodream.ingest.writer import Entry, HistoryMidWrite, append
from nanodream.memory.door import Door
from nanodream.safety.secret_scan import redacted, redacted_together
from nanodream.text import structure
from nanodream.vocab import ExitCode, Outcome, Refused, count, count_entries, utc_stamp

GROUP_BYTES = 16 * 1024 * 1024
MIB = 1024 * 1024


@dataclass(frozen=True)
class IngestRequest:
    sources: tuple[IngestSource, ...]
    named: bool = False  # named on the command line: a missing or unrecognised path refuses the pass (exit 2)
    dry_run: bool = False
    trigger: str = "manual"


def extractor_for(settings: Settings, door: Door) -> Extractor:
    """Rules for `model = "builtin"`, else the model with the workspace's extraction prompt."""
    if settings.offline:
        from nanodream.ingest.extractors.builtin import BuiltinExtractor

        return BuiltinExtractor(zone(settings.timezone))
    from nanodream.ingest.extractors.model import ModelExtractor
    from nanodream.ingest.prompt import active_ingest_prompt

    return ModelExtractor(settings, active_ingest_prompt(door.workspace).text, zone(settings.timezone))


def ingest(door: Door, settings: Settings, request: IngestRequest, extractor: Extractor | None = None) -> IngestReport:
    """Run one pass inside the write door; refusals (a named path missing or unrecognised, a damaged journal,
    a host writing history) raise Refused, everything else is in the report."""
    chosen = extractor or extractor_for(settings, door)
    report = IngestReport(outcome=Outcome.NOTHING_TO_DO, dry_run=request.dry_run, extractor=chosen.name)
    seen = Seen(door.workspace, preview=request.dry_run)
    try:
        _Pass(door, settings, request, report, seen, chosen).run()
    finally:
        seen.close()
    return report


ANSWERING = "answering_nanodream"  # watermark context: sessions whose next assistant turns answer nanodream


@dataclass
class _Origin:
    read: FileRead
    source: SourceReport
    roles: tuple[str, ...]
    taken: int = 0  # its messages that are new this pass


@dataclass
class _Pass:
    door: Door
    settings: Settings
    request: IngestRequest
    report: IngestReport
    seen: Seen
    extractor: Extractor
    marks: dict[str, Watermark] = field(default_factory=dict)
    renamed: dict[tuple[int, int], list[Watermark]] = field(default_factory=dict)  # the marks as they were, by inode
    stopped: str = ""  # why the pass stopped extracting (a failed chunk, the run's budget)
    words: set[str] = field(default_factory=set)  # the words keys of what this pass selected (`_replays`)

    @property
    def zone(self) -> tzinfo:
        return zone(self.settings.timezone)

    def run(self) -> None:
        workspace = self.door.workspace
        if not self.request.dry_run:
            try:
                self.report.recovered = recover(workspace, self.seen)
            except IngestJournalUnreadable as exc:
                raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
        try:
            self.marks = watermarks.load(workspace)
        except WatermarksUnreadable as exc:
            self.report.notices.append(f"{exc}; every source is read again (what was ingested is recognised)")
        self.renamed = by_inode(self.marks)
        if self.request.named:
            _preflight(self.request.sources)
        group: list[_Origin] = []
        for source in self.request.sources:
            for origin in self._reads(source):
                group.append(origin)
                if sum(o.read.bytes_read for o in group) >= GROUP_BYTES:
                    self._settle(group)
                    group = []
        self._settle(group)
        self._conclude()

    # reading ------------------------------------------------------------------------------------------

    def _reads(self, source: IngestSource) -> Iterator[_Origin]:
        """The files of a source with something new, one at a time (a group is settled as soon as it is full)."""
        shown = SourceReport(str(source.path), source.format or "")
        self.report.sources.append(shown)
        try:
            listing = list_files(source)
        except SourceMissing as exc:
            shown.error = str(exc)
            return
        shown.files, shown.skipped = len(listing.files), listing.skipped
        for path in listing.files:
            read = self._read(path, source, shown)
            if read is not None:
                shown.changed += 1
                yield _Origin(read, shown, source.roles)

    def _read(self, path: Path, source: IngestSource, shown: SourceReport) -> FileRead | None:
        """What is new in one file (None: nothing). A file nanodream cannot read is the source's error when the
        source names it (a named path was refused before anything was read: `_preflight`), and passed over,
        said so, inside a folder."""
        follow = path == source.path
        try:
            stat = os.stat(path) if follow else os.lstat(path)
            mark = self.marks.get(str(path)) or moved_here(path, stat, self.renamed)
            how = change(path, stat, mark, is_document(path, follow=follow))
            if how == "unchanged":
                return None
            fmt = self._format(path, source, mark if how == "appended" else None, follow)
            if fmt is None:
                return None
            found = read_new(path, fmt, how, mark if how == "appended" else None, follow=follow)
            found.mark.messages = mark.messages if mark is not None else 0  # read again: the count goes on
            if found.bad_lines:
                self.report.notices.append(passed_over(path, found.bad_lines))
            return found
        except Unrecognised as exc:
            _unreadable(shown, str(exc), named=follow)
        except OSError as exc:
            shown.skipped.append(f"{path}: {exc.strerror or exc}")
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # a record no reader expected
            _unreadable(shown, f"{path}: a record nanodream cannot read ({type(exc).__name__}: {exc})", named=follow)
        return None

    def _format(self, path: Path, source: IngestSource, mark: Watermark | None, follow: bool):
        if mark is not None and mark.format in REGISTRY and source.format in (None, mark.format):
            return REGISTRY[mark.format]
        return detect(path, source.format, follow=follow)

    # one group: select, chunk, extract, append -------------------------------------------------------

    def _settle(self, group: list[_Origin]) -> None:
        if not group:
            return
        selected, origin_of = self._select(group)
        chunks = session_chunks(selected, self.settings.ingest_chunk_tokens, self.zone)
        extracted = self._extract([redacted_chunk(chunk) for chunk in chunks])
        done = {m.key for chunk, _ in extracted for m in chunk.messages}
        finished = [o for o in group if all(m.key in done for m in o.read.messages if m.key in origin_of)]
        entries = []
        for chunk, extraction in extracted:
            parts = [text for text in (extraction.content, extraction.waiting) if text.strip()]
            entries += [self._entry(chunk, text, turns=index == 0) for index, text in enumerate(parts)]
            origin_of[chunk.messages[0].key].source.entries += len(parts)
        words = {m.words_key for chunk, _ in extracted for m in chunk.messages if m.words_key}
        self._write(entries, sorted(done | words), finished)  # its words too: a later replay of them is told

    def _not_nanodreams(self, origin: _Origin) -> list[Message]:
        """The file's new messages without nanodream's own exchanges, which may have begun in an earlier pass."""
        context = origin.read.mark.context
        answering = set(context.pop(ANSWERING, []))
        kept, own = without_nanodream(origin.read.messages, answering)
        if answering:
            context[ANSWERING] = sorted(answering)
        self.report.left_out += own
        return kept

    def _select(self, group: list[_Origin]) -> tuple[list[Message], dict[str, _Origin]]:
        """The new messages of the group: roles the source takes, not nanodream's own, not seen before."""
        candidates: list[Message] = []
        origin_of: dict[str, _Origin] = {}
        for origin in group:
            for message in self._not_nanodreams(origin):
                if message.role not in origin.roles:
                    self.report.left_out += 1
                elif message.key in origin_of:
                    self.report.duplicates += 1  # the same message twice in this pass (a copied file)
                else:
                    origin_of[message.key] = origin
                    candidates.append(message)
        known = self.seen.known([key for m in candidates for key in (m.key, *m.legacy_keys)])
        selected = [m for m in candidates if m.key not in known and known.isdisjoint(m.legacy_keys)]
        replays = self._replays(group, selected)
        selected = [m for m in selected if m.key not in replays]
        self.words.update(m.words_key for m in selected if m.words_key)
        self.report.duplicates += len(candidates) - len(selected)
        for message in selected:
            origin_of[message.key].taken += 1
            origin_of[message.key].source.messages += 1
        self.report.messages += len(selected)
        return selected, {m.key: origin_of[m.key] for m in selected}

    def _replays(self, group: list[_Origin], selected: list[Message]) -> set[str]:
        """The keys of selected messages that write again words ingested before, in a burst (`in_a_burst`) of a
        file whose name alone gives its session: an earlier session's turns, copied with new time stamps."""
        chosen = {m.key for m in selected}
        burst = [m for origin in group for m in in_a_burst(origin.read.messages) if m.key in chosen and m.words_key]
        if not burst:
            return set()
        keys = {m.key for m in burst}
        said = self.words | {m.words_key for m in selected if m.words_key and m.key not in keys}
        said |= self.seen.known([m.words_key for m in burst])
        return {m.key for m in burst if m.words_key in said}

    def _extract(self, chunks: list[Chunk]) -> list[tuple[Chunk, Extraction]]:
        extracted = []
        for chunk in chunks:
            self.stopped = self.stopped or self._over_budget()
            if self.stopped:
                break
            try:
                extraction = self.extractor.extract(chunk)
            except ExtractionFailed as exc:
                self.report.spend(exc.tokens_in, exc.tokens_out, None)
                self.stopped = f"session {chunk.session}: {exc.reason}"
                break
            self.report.spend(extraction.tokens_in, extraction.tokens_out, extraction.cost)
            self.report.notices += [f"session {chunk.session}: {note}" for note in extraction.notes]
            for language, messages in extraction.for_model.items():
                self.report.for_model[language] = self.report.for_model.get(language, 0) + messages
            extracted.append((chunk, extraction))
        return extracted

    def _over_budget(self) -> str:
        used = self.report.tokens_in + self.report.tokens_out
        if used >= self.settings.max_run_tokens:
            return f"token budget reached ({used} >= {self.settings.max_run_tokens}); the rest waits"
        cost, cap = self.report.cost, self.settings.max_cost
        if cap is not None and cost is not None and cost >= cap:
            return f"cost budget reached (${cost:.4f} >= ${cap:.4f}); the rest waits"
        return ""

    def _entry(self, chunk: Chunk, content: str, *, turns: bool) -> Entry:
        """Secrets redacted with the memory's own scanner before anything is written (the chunk's messages were
        before they were read); the chunk's turns go with its first entry only (`turns`), so a chunk written as
        what was read and what waits for a model stores each message once."""
        stamp = history_stamp(chunk.when, self.zone)
        keep = turns and self.settings.keep_turns_mb
        said = (said_turn(m, stamp, self.zone) for m in chunk.messages) if keep else ()
        kept = tuple(turn for turn in said if turn.text)  # a turn the harness wrote all of says nothing to recall
        return Entry(stamp, redacted(content), chunk.session, kept)

    def _write(self, entries: list[Entry], keys: list[str], finished: list[_Origin]) -> None:
        marks = {str(o.read.path): _advanced(o) for o in finished}
        if self.request.dry_run:
            self._show(entries, [None] * len(entries))
            return
        if entries:
            journal = IngestJournal(0, "", keys, {path: asdict(mark) for path, mark in marks.items()})
            try:
                cursors = append(self.door.workspace, entries, journal, self.seen)
            except HistoryMidWrite as exc:
                raise Refused(str(exc), exit_code=ExitCode.BUSY) from None
            self._show(entries, cursors)
            self.report.cursors = [(self.report.cursors or cursors)[0], cursors[-1]]
            self._bound_turns()
        elif marks:
            watermarks.save(self.door.workspace, watermarks.merged(self.marks, marks))
        self.marks = watermarks.merged(self.marks, marks)

    def _bound_turns(self) -> None:
        """The turn store back under `keep_turns_mb`, whole oldest segments first, said so."""
        dropped = turns.keep_newest(self.door.workspace, self.settings.keep_turns_mb * MIB)
        if dropped.turns:
            self.report.notices.append(
                f"the turn store keeps the newest {self.settings.keep_turns_mb} MiB (keep_turns_mb): "
                f"{count(dropped.turns, 'older turn')} said up to {dropped.before} no longer recalled")

    def _show(self, entries: list[Entry], cursors: list[int] | list[None]) -> None:
        room = max(ENTRIES_SHOWN - len(self.report.entries), 0)
        shown = list(zip(entries, cursors, strict=True))[:room]
        self.report.entries += [{"cursor": cursor, "timestamp": entry.timestamp, "session_key": entry.session_key,
                                 "content": entry.content} for entry, cursor in shown]
        self.report.added += len(entries)

    def _conclude(self) -> None:
        report = self.report
        if self.stopped:
            report.outcome = Outcome.FAILED
            report.reason = f"{count_entries(report.added)} added; stopped at {self.stopped}"
        elif report.dry_run:
            report.outcome = Outcome.DRY_RUN
        elif report.added:
            report.outcome = Outcome.INGESTED
        if not self.request.dry_run and (report.added or self.stopped):
            record_pass(self.door.workspace, report, self.request.trigger)


def redacted_chunk(chunk: Chunk) -> Chunk:
    """The chunk with every message's secrets redacted, before any extractor reads it: a key cut by a sentence's
    end at its "!" ("sk_h1.Fu!Ic;…") no longer looks like one, and a model's provider never sees it. A secret
    found in one message is redacted in the others too (the agent repeating it)."""
    texts = redacted_together([message.text for message in chunk.messages])
    return replace(chunk, messages=[replace(message, text=text)
                                    for message, text in zip(chunk.messages, texts, strict=True)])


def said_turn(message: Message, stamp: str, zone: tzinfo) -> Turn:
    """The message (redacted: `redacted_chunk`) as the turn store keeps it (backlog/turns.py), on the person's clock,
    without the lines a harness writes into the person's turn ("[message_id: 19]", an event line); a message
    without a time of its own is dated by its entry's `stamp`. Its cursor is filled in when appended."""
    moment = local(message.when, zone) if message.when is not None else None
    day = f"{moment:%Y-%m-%d}" if moment is not None else stamp[:10]
    time = f"{moment:%H:%M}" if moment is not None else ""
    text = structure.the_persons_words(message.text).strip() if message.role == "user" else message.text
    return Turn(message.key, 0, message.session, day, time, message.role, message.speaker, kept_text(text))


def _unreadable(shown: SourceReport, reason: str, *, named: bool) -> None:
    """A file that cannot be read is the source's error when the source names it, else passed over, said so:
    one bad file in a folder never stops the others."""
    if named:
        shown.error = reason
    else:
        shown.skipped.append(reason)


def _preflight(sources: tuple[IngestSource, ...]) -> None:
    """Paths named on the command line must all exist and a named file must be a transcript, before anything
    is appended: one that is not refuses the whole pass (exit 2) with history untouched."""
    for source in sources:
        try:
            list_files(source)
            if source.path.is_file():
                detect(source.path, source.format)
        except (SourceMissing, Unrecognised) as exc:
            raise Refused(str(exc), exit_code=ExitCode.USAGE) from None


def _advanced(origin: _Origin) -> Watermark:
    mark = origin.read.mark
    mark.messages += origin.taken
    if origin.taken:
        mark.read_at = utc_stamp()
    return mark

