"""Turn a Claude Code console transcript (the text a terminal showed) back into Claude Code's JSONL records.

Used once per source to build this corpus (see README.md); kept so the conversion can be checked and redone.
The person's prompts are the blocks opening with "> "; the agent's prose the blocks opening with "⏺ " that
are not a tool call ("⏺ Bash(…)", "⏺ Read Todos"); tool calls and their output ("⎿") are left out, as
nanodream's readers leave them out of the native formats. A slash command ("/cost") is written in the command
tags Claude Code uses, and the summary a compacted session continues from is flagged `isCompactSummary`, as
Claude Code flags it. Lines keep their breaks as the terminal showed
them (the console wrapped long prompts), each message gets the given day as its timestamp, a minute apart,
and an id made from the session name and its place.

    python console_to_chat.py DAY.md --session NAME --day 2025-05-20 [--first N] [--count M] > transcript.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys

_TOOL = re.compile(r"^⏺ (?:[\w ]+\(.*|(?:Read|Update) Todos\b.*|Call\(.*)$")


def blocks(lines: list[str]) -> list[tuple[str, str]]:
    """(role, text) for every prompt and every prose block of the agent, in order."""
    found: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for line in lines:
        if line.startswith("> "):
            current = [line[2:]]
            found.append(("user", current))
        elif line.startswith("⏺ "):
            current = None if _TOOL.match(line) else [line[2:]]
            if current is not None:
                found.append(("assistant", current))
        elif current is not None and (line.startswith("  ") and not line.lstrip().startswith("⎿") or not line):
            current.append(line[2:] if line.startswith("  ") else line)
        else:
            current = None
    return [(role, "\n".join(text).strip()) for role, text in found if "\n".join(text).strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("console")
    parser.add_argument("--session", required=True)
    parser.add_argument("--day", required=True)
    parser.add_argument("--first", type=int, default=0, help="index of the first prompt kept")
    parser.add_argument("--count", type=int, default=10**6, help="how many prompts to keep")
    args = parser.parse_args()
    with open(args.console, encoding="utf-8") as handle:
        found = blocks(handle.read().splitlines())
    prompts = [i for i, (role, _) in enumerate(found) if role == "user"]
    start = prompts[args.first] if args.first < len(prompts) else len(found)
    end_prompt = args.first + args.count
    end = prompts[end_prompt] if end_prompt < len(prompts) else len(found)
    for number, (role, text) in enumerate(found[start:end]):
        sys.stdout.write(json.dumps(record(role, text, args, number), ensure_ascii=False) + "\n")


_SUMMARY = "This session is being continued from a previous conversation"


def record(role: str, text: str, args: argparse.Namespace, number: int) -> dict:
    """One message as Claude Code writes it: a user record with text content, an assistant one with parts; a
    slash command in its command tags, and the summary that continues a compacted session flagged as such."""
    if role == "user" and re.fullmatch(r"/\w+(?: .*)?", text):
        name, _, rest = text.partition(" ")
        text = (f"<command-name>{name}</command-name>\n<command-message>{name[1:]}</command-message>\n"
                f"<command-args>{rest}</command-args>")
    content = text if role == "user" else [{"type": "text", "text": text}]
    made = {"type": role, "message": {"role": role, "content": content}, "uuid": f"{args.session}-{number}",
            "sessionId": args.session, "timestamp": f"{args.day}T{9 + number // 60:02d}:{number % 60:02d}:00Z",
            "isSidechain": False}
    if role == "user" and text.startswith(_SUMMARY):
        made["isCompactSummary"] = True
    return made


if __name__ == "__main__":
    main()
