"""Output a terminal obeys: escape sequences from history, memory, a model or git are shown, never sent.

A history entry whose content, timestamp and session key carry `ESC ] 0 ;` (retitle), `ESC [ 2 J` (clear)
and a bidi override is dreamed; then every command and front end that shows it must print the escapes
visibly, and `--json` must keep them as JSON escapes.
"""

from __future__ import annotations

import json
import unicodedata

import httpx
import pytest

from nanodream.cli import app
from nanodream.config import Settings
from nanodream.controls import json_visible, visible
from nanodream.run.dream import run_dream
from nanodream.slash import respond
from tests.serve.test_serve import PageServer
from tests.support.cli import runner
from tests.support.workspaces import write_history

RETITLE, CLEAR, BELL, OVERRIDE = "\x1b]0;pwned\x07", "\x1b[2J", "\x07", "\u202e"
RAW = (RETITLE, CLEAR, BELL, OVERRIDE, "\x9b")


def _hostile(ws) -> None:
    write_history(ws, [
        {"cursor": 1, "timestamp": f"2026-10-01 10:00{CLEAR}", "session_key": f"tg:{RETITLE}42",
         "content": f"[durable] The build server is called atlas.\n[durable] Rollouts go out{OVERRIDE} daily{CLEAR}."},
        f'{{"cursor": 2, "timestamp": "2026-10-01", "content": "{RETITLE}" oops',  # a malformed line
    ])


@pytest.fixture
def hostile(workspace):
    _hostile(workspace)
    report = run_dream(workspace, Settings())
    assert report.outcome == "committed", report.reason
    return workspace


def _assert_shown(text: str) -> None:
    for raw in RAW:
        assert raw not in text, repr(text)


def test_visible_escapes_controls_and_keeps_lines():
    assert visible(f"a{RETITLE}b\n\tc{OVERRIDE}") == "a\\x1b]0;pwned\\x07b\n\tc\\u202e"
    assert visible("plain text, ünïcode\n") == "plain text, ünïcode\n"


JOINERS = {"\u200c", "\u200d"}  # Persian, Indic scripts and emoji sequences need them; they reorder nothing


def test_every_invisible_format_character_is_escaped_but_the_joiners():
    formats = [chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) == "Cf"]
    assert len(formats) > 150
    for char in formats:
        shown = visible(f"a{char}b")
        assert (shown == f"a{char}b") == (char in JOINERS), (hex(ord(char)), shown)
    assert visible("a\u200fb\U000e0041") == "a\\u200fb\\U000e0041"  # a tag character spelled unambiguously
    assert visible("می\u200cخواهم 👩\u200d💻") == "می\u200cخواهم 👩\u200d💻"


@pytest.mark.parametrize("char", ["\u200f", "\u200e", "\u061c", "\u2067", "\u200b", "\ufeff", "\U000e0041",
                                  "\U0001d173"])
def test_json_visible_spells_format_characters_as_json_escapes_that_read_back_the_same(char):
    text = json.dumps({"summary": f"filed{char} it"}, ensure_ascii=False)
    shown = json_visible(text)
    assert char not in shown and json.loads(shown) == json.loads(text)


@pytest.mark.parametrize("args", [("show",), ("log",), ("status",), ("history",), ("why", "atlas"),
                                  ("prompt", "show", "--rendered", "--tidy"), ("review",)])
def test_every_command_shows_escapes_instead_of_sending_them(hostile, args):
    result = runner.invoke(app, [*args, "-w", str(hostile.root)])
    assert result.exit_code in (0, 1), result.output
    _assert_shown(result.output)


def test_show_prints_the_history_it_consumed_visibly(hostile):
    out = runner.invoke(app, ["show", "-w", str(hostile.root)]).output
    assert "\\x1b[2J" in out and "atlas" in out


def test_json_keeps_them_as_json_escapes(hostile):
    out = runner.invoke(app, ["show", "-w", str(hostile.root), "--json"]).stdout
    _assert_shown(out)
    assert "\\u001b" in out and json.loads(out)["history_entries"][0]["timestamp"].endswith(CLEAR)


def test_slash_replies_show_them(hostile):
    for text in ("/dream-log", "/dream-log HEAD", "/dream-restore"):
        _assert_shown(respond(hostile.root, text).markdown)


def test_the_page_shows_them(hostile):
    with PageServer(hostile) as page, httpx.Client(base_url=page.url) as client:
        for path in ("/", "/commit/" + _head(hostile)):
            html = client.get(path).text
            _assert_shown(html)


def _head(ws) -> str:
    import subprocess

    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws.root, capture_output=True, text=True).stdout.strip()


def test_mcp_results_carry_them_as_json_escapes_and_errors_show_them():
    from nanodream.mcp.results import failed, succeeded

    hostile = f"atlas{CLEAR}{OVERRIDE}\x9b ünïcode"
    result = succeeded({"text": hostile})
    shown = result.content[0].text
    _assert_shown(shown)
    assert json.loads(shown)["text"] == hostile and result.structured_content["text"] == hostile
    _assert_shown(failed(f"unknown sha: {hostile}").content[0].text)
