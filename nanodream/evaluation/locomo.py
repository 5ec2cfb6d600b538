"""LoCoMo's public conversations as eval scenarios: each conversation a transcript, each question an [[ask]].

LoCoMo (snap-research/locomo; non-commercial licence: the person downloads it, nanodream never ships it) is one
JSON array of samples: `conversation` holds `speaker_a`, `speaker_b`, and per session `session_N` (turns
`{speaker, dia_id, text}`, with `blip_caption` when a photo was shared) and `session_N_date_time`
("1:56 pm on 8 May, 2023"); `qa` holds `{question, answer, evidence, category}`. Adversarial questions
(category 5) carry `adversarial_answer` and no `answer`: there is nothing memory should say, so they are
skipped, as is any item without an answer.

Both speakers are people, so every turn is a `user` message with the speaker's `name`: the builtin extractor
files what each says about themselves under their own name.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from nanodream import boundedjson
from nanodream.evaluation.scenario import EXPECT_FILE, ScenarioError

_SESSION = re.compile(r"^session_(\d+)$")


def import_locomo(source: Path, out: Path) -> list[Path]:
    """Write one scenario per conversation under `out`; the scenario folders, in the file's order."""
    try:
        data = boundedjson.loads(source.read_bytes(), max_bytes=boundedjson.DOCUMENT_BYTES)  # a file a person named
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{source}: not a LoCoMo JSON file ({exc})") from None
    samples = data if isinstance(data, list) else [data]
    if not samples or not all(isinstance(s, dict) and isinstance(s.get("conversation"), dict) for s in samples):
        raise ScenarioError(f"{source}: not LoCoMo's layout (a list of objects with `conversation` and `qa`)")
    return [_write(sample, number, out) for number, sample in enumerate(samples)]


def _write(sample: dict[str, Any], number: int, out: Path) -> Path:
    name = f"locomo-{sample.get('sample_id', number)}"
    folder = out / re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
    folder.mkdir(parents=True, exist_ok=True)
    turns = list(_turns(sample["conversation"], name))
    (folder / "transcript.jsonl").write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns),
                                             encoding="utf-8")
    asks = [qa for qa in sample.get("qa", []) if isinstance(qa, dict) and _answer(qa) is not None]
    lines = [f"name = {json.dumps(name)}",
             f"description = {json.dumps(f'LoCoMo conversation {name}: {len(turns)} turns, {len(asks)} questions')}"]
    for qa in asks:
        lines += ["", "[[ask]]", f"question = {json.dumps(str(qa['question']), ensure_ascii=False)}",
                  f"answer = {json.dumps(_answer(qa), ensure_ascii=False)}"]
    (folder / EXPECT_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _answer(qa: dict[str, Any]) -> str | None:
    answer = qa.get("answer")
    if isinstance(answer, bool) or answer is None or "adversarial_answer" in qa:
        return None
    text = str(answer).strip()
    return text or None


def _turns(conversation: dict[str, Any], name: str):
    sessions = sorted((int(m.group(1)), key) for key in conversation if (m := _SESSION.match(key)))
    for number, key in sessions:
        when = _when(conversation.get(f"{key}_date_time"))
        for turn in conversation[key] or []:
            if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                continue
            text = turn["text"] + (f" (shares a photo: {turn['blip_caption']})" if turn.get("blip_caption") else "")
            message = {"role": "user", "name": str(turn.get("speaker", "")), "content": text,
                       "session": f"{name}-session-{number}", "id": turn.get("dia_id")}
            if when is not None:
                message["timestamp"] = when
            yield message


def _when(raw: Any) -> str | None:
    """"1:56 pm on 8 May, 2023" as ISO 8601 (the conversation's own clock), None when it does not parse."""
    try:
        return datetime.strptime(str(raw).strip(), "%I:%M %p on %d %B, %Y").isoformat()
    except ValueError:
        return None
