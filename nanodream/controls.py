"""Control characters in text from outside — history, memory, a model, git — made visible instead of obeyed.

History content, session keys and a model's summary can carry terminal escape sequences (`ESC ] 0 ;`
retitles the window, `ESC [ 2 J` clears it) and bidirectional overrides that reorder what a person reads.
Every front end passes such text through `visible` before a person sees it: each control character becomes
its escape (`\\x1b`, `\\u202e`), newlines and tabs stay. JSON output needs nothing: it escapes them itself.

The invisible format characters (Unicode category Cf) count as controls too: a right-to-left mark (U+200F), an
override (U+202E) or an isolate (U+2066) reorders a commit message or a log line without showing itself, a
zero-width space or a tag character (U+E0041) hides text. Only the two joiners (U+200C, U+200D) stay, as the
injection tripwires leave them: Persian, Indic scripts and emoji sequences use them every day and they reorder
nothing.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, the Unicode line/paragraph separators, and every format
# character (category Cf, Unicode 14) but the joiners: what a terminal or a browser acts on without showing.
_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e"
           "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
           "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_FORMAT}]")


def holds_controls(text: str) -> bool:
    """Whether `text` holds a character `visible` would escape: what a record that must be plain text refuses."""
    return bool(_CONTROL.search(text))


def visible(text: str) -> str:
    """`text` with every control character shown as its escape; text without any is returned as it is."""
    return _CONTROL.sub(_escaped, text) if _CONTROL.search(text) else text


def json_visible(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with the same characters escaped as JSON escapes
    (`\\u001b`, `\\u202e`): still valid JSON meaning the same, and nothing a display would act on."""
    return _CONTROL.sub(_json_escaped, text) if _CONTROL.search(text) else text


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escaped(match: re.Match[str]) -> str:
    """JSON spells a character beyond the BMP as its UTF-16 surrogate pair."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"
