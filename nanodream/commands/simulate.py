"""`nanodream simulate --seed N -o DIR`: write a long-horizon eval scenario generated from a seed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nanodream.commands.common import JsonOption, concluded, console, fail
from nanodream.vocab import count


def simulate(
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same bytes.", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Directory to write the scenario into.",
                                         show_default=False)],
    days: Annotated[int, typer.Option("--days", help="Simulated days (4 entries a day, plus the opening).")] = 60,
    user_facts: Annotated[int, typer.Option(
        "--user-facts", help="How many of the user's changing facts to track (1 to 5).")] = 5,
    as_json: JsonOption = False,
) -> None:
    """Simulate weeks of an agent's history with the ground truth of what memory should say at the end.

    A persona and a project whose facts change (moves, job changes, tool switches), corrections, procedures
    retold across sessions, tasks opened and closed, [skip] chatter and hostile lines. Score any engine on
    it with `nanodream eval DIR`.

    \b
    Examples:
      nanodream simulate --seed 7 -o /tmp/sim7 && nanodream eval /tmp/sim7
      nanodream simulate --seed 1 --days 365 --user-facts 3 -o /tmp/year
    """
    from nanodream import api

    if days < 1 or not 1 <= user_facts <= 5:
        fail("--days must be at least 1 and --user-facts between 1 and 5", as_json=as_json)
    concluded(api.simulate(output, seed, days, user_facts), as_json, lambda report: console.print(
        f"wrote {count(report.entries, 'history entry', 'history entries')} and their ground truth to {output}",
        markup=False, highlight=False))


def register(root: typer.Typer) -> None:
    root.command()(simulate)
