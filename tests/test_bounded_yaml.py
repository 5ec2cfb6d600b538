"""The one YAML reader: front matter is refused when too long, too aliased or too deep, before it becomes values,
and every way PyYAML can fail is one ValueError — so no record and no skill can hang or crash a command."""

from __future__ import annotations

import datetime

import pytest

from nanodream.boundedyaml import MAX_ALIASES, YAMLRefused, loads
from nanodream.skills import parse_skill, skill_summary


def laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * width) + "]" for n in range(1, levels)]
    return "\n".join(lines)


def test_plain_front_matter_reads_as_pyyaml_reads_it():
    assert loads("name: x\ncreated: 2026-10-14\nweights: [0.5, 1]\nnested: {a: [1, {b: c}]}\n") == {
        "name": "x", "created": datetime.date(2026, 10, 14), "weights": [0.5, 1], "nested": {"a": [1, {"b": "c"}]}}
    assert loads("") is None
    assert loads("a: &x 1\nb: *x\n") == {"a": 1, "b": 1}  # a few aliases, as a person may write, still read


@pytest.mark.parametrize(("text", "said"), [
    (laughs(), "aliases"),
    (laughs(levels=4, width=3), "aliases"),
    ("a: &a {x: 1}\nb: &b {<<: [*a, *a, *a, *a]}\nc: &c {<<: [*b, *b, *b, *b]}\nd: {<<: [*c, *c]}\n", "aliases"),
    ("a: " + "[" * 5000 + "]" * 5000, "deeper"),
    ("a: " + "{b: " * 40 + "1" + "}" * 40, "deeper"),
    ("x" * (64 * 1024 + 1), "longer"),
    ("n: " + "9" * 10_000, "value"),
    ("d: 2026-02-30", "value"),
    ("d: 0000-01-01", "value"),
    ("{[1]: 2}", "not valid YAML"),
    ("a: [1, 2", "not valid YAML"),
    ("a: !!python/object:os.system x", "not valid YAML"),
    ("\t- x", "not valid YAML"),
])
def test_what_could_hang_crash_or_run_code_is_refused_saying_why(text, said):
    with pytest.raises(YAMLRefused) as caught:
        loads(text)
    assert said in str(caught.value) and isinstance(caught.value, ValueError)


def test_the_limits_are_the_callers_to_name():
    assert loads("a: &x 1\n" + "".join(f"b{n}: *x\n" for n in range(20)), max_aliases=20)["b19"] == 1
    with pytest.raises(YAMLRefused):
        loads("a: &x 1\n" + "".join(f"b{n}: *x\n" for n in range(MAX_ALIASES + 1)))
    with pytest.raises(YAMLRefused, match="longer"):
        loads("a: 1", max_bytes=3)


@pytest.mark.parametrize("front", [
    "name: deploy\ndescription: ship it\nsee_also: [" + ", ".join(["*a8"] * 9) + "]\n" + laughs(),
    "name: " + "[" * 3000 + "]" * 3000 + "\ndescription: d",
    "name: &n " + "[" * 20 + "]" * 20 + "\ndescription: d\n" + "".join(f"x{i}: *n\n" for i in range(30)),
])
def test_a_skill_with_a_hostile_front_matter_is_an_invalid_skill_at_once(front):
    text = f"---\n{front}\n---\n\n1. Run the release.\n"
    with pytest.raises(ValueError, match="skills/deploy/SKILL.md front matter"):
        parse_skill("skills/deploy/SKILL.md", text)
    assert "(invalid SKILL.md front matter)" in skill_summary("skills/deploy/SKILL.md", text)


def test_a_skill_reads_as_before():
    info = parse_skill("skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Ship it.\nsee_also: [ops]\n"
                                                 "created: 2026-10-01\n---\n\n1. Build.\n2. Ship.\n")
    assert (info.name, info.description, info.see_also) == ("deploy", "Ship it.", ("ops",))
    assert info.body == "1. Build.\n2. Ship." and info.metadata["created"] == datetime.date(2026, 10, 1)
