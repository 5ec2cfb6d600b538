"""The one YAML reader: front matter is bounded in size, aliases and depth before it becomes Python values.

Insight records and SKILL.md files can be written by a person, a model or a merge, and YAML lets a few hundred
bytes stand for billions of values: nine anchors, each a list of nine aliases of the one before ("billion
laughs"). PyYAML builds that as shared lists, which is quick, but everything that later walks it — a repr in an
error message, a comparison, a JSON dump — walks every path, and `insights list`, `recall`, `why` and a run hung.
Here the text is refused when longer than the caller's limit before it is parsed, and while it is composed an
alias beyond the limit or a nesting beyond the depth ends the parse; every way PyYAML can fail (a YAML error, an
integer of too many digits, a date that does not exist, a recursion) is `YAMLRefused`, a ValueError that says why.
"""

from __future__ import annotations

import functools
from typing import Any

MAX_ALIASES = 8  # front matter needs none; eight keep anything a person writes by hand and bound what it expands to
MAX_DEPTH = 32  # deeper than any front matter nanodream reads or writes (a source is three levels down)
FRONT_MATTER_BYTES = 64 * 1024  # an insight's or a skill's front matter


class YAMLRefused(ValueError):
    """Text that is not YAML, or is longer, deeper or more aliased than nanodream reads; the message says which."""


def loads(text: str, *, max_bytes: int = FRONT_MATTER_BYTES, max_aliases: int = MAX_ALIASES,
          max_depth: int = MAX_DEPTH) -> Any:
    """`yaml.safe_load(text)`, refused (YAMLRefused) when `text` is longer than `max_bytes` (UTF-8), uses more than
    `max_aliases` aliases or nests deeper than `max_depth`."""
    import yaml  # on first use: `--help` and `status` never read YAML

    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise YAMLRefused(f"longer than {max_bytes // 1024} KB ({size} bytes)")
    loader = _loader()(text)
    loader.limits = (max_aliases, max_depth)
    try:
        return loader.get_single_data()
    except YAMLRefused:
        raise
    except yaml.YAMLError as exc:
        raise YAMLRefused(f"not valid YAML ({exc.__class__.__name__})") from None
    except (ValueError, OverflowError, TypeError, RecursionError) as exc:
        raise YAMLRefused(f"not a value YAML can hold ({exc.__class__.__name__})") from None
    finally:
        loader.dispose()


@functools.cache
def _loader() -> type:
    """PyYAML's pure-Python safe loader, counting aliases and depth as it composes (the C loader cannot be)."""
    import yaml

    class Bounded(yaml.SafeLoader):
        limits = (MAX_ALIASES, MAX_DEPTH)
        aliases = 0
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            max_aliases, max_depth = self.limits
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > max_aliases:
                    raise YAMLRefused(f"more than {max_aliases} aliases (*name)")
            self.depth += 1
            try:
                if self.depth > max_depth:
                    raise YAMLRefused(f"nested deeper than {max_depth} levels")
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return Bounded
