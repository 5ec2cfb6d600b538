"""The JSON schema of a declared report, made from the same declaration its JSON comes from.

A report's JSON is its dataclass fields and its `json_shape` (vocab.Shape); here the same fields, their type
annotations and the derived properties' return annotations give the schema: what the MCP server lists as each
tool's output schema, and the keys docs/json.md lists. The schemas are stored in schemas.json (written with
docs/json.md by `python -m nanodream.api.outputs`, checked by tests/api/test_json.py), so the MCP server lists them
without importing the modules the reports live in.
"""

from __future__ import annotations

import functools
import inspect
import operator
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import is_dataclass
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from nanodream.api import reports
from nanodream.boundedjson import STATE_BYTES, bounded_loads
from nanodream.vocab import Declared, json_keys, shape_of

STORED = Path(__file__).with_name("schemas.json")
_SCALARS = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null", Path: "string"}


class _Names(dict):
    """Annotation names a module imports only for type checking, resolved through the API's re-exports."""

    def __missing__(self, name: str) -> Any:
        if name in reports.ELSEWHERE:
            return reports.elsewhere(name)
        raise KeyError(name)


@functools.cache
def hints(cls: type) -> dict[str, Any]:
    """The type of every attribute a declared class's JSON draws on: its fields and its derived properties."""
    found = typing.get_type_hints(cls, localns=_Names())
    for name in shape_of(cls).derived:
        found[name] = typing.get_type_hints(getattr(cls, name).fget, localns=_Names())["return"]
    return found


def schema_of(cls: type) -> dict[str, Any]:
    """The JSON schema of `cls`'s JSON: an object with every key required and no other (an envelope's is its
    inner answer's; a spread field's keys join the object's own)."""
    shape = shape_of(cls)
    if shape.inner is not None:
        return type_schema(_without_none(hints(cls)[shape.inner]))
    properties: dict[str, Any] = {}
    open_ended = False
    for name in shape.spread:
        lent = type_schema(_without_none(hints(cls)[name]))
        properties.update(lent.get("properties", {}))
        open_ended |= "properties" not in lent
    properties.update({key: type_schema(hints(cls)[name]) for key, name in json_keys(cls)})
    schema = {"type": "object", "title": cls.__name__}
    described = _description(cls)
    if described:
        schema["description"] = described
    return {**schema, "properties": properties, "required": list(properties), "additionalProperties": open_ended}


def type_schema(hint: Any) -> dict[str, Any]:
    """The schema of one annotated type: scalars, enums, unions, lists, mappings and declared classes."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [type_schema(argument) for argument in arguments]}
    if origin is Literal:
        return {"enum": list(arguments)}
    if origin is not None:
        return _generic_schema(origin, arguments)
    if isinstance(hint, type):
        return _class_schema(hint)
    return {}  # Any, object: whatever JSON holds


def _generic_schema(origin: type, arguments: tuple) -> dict[str, Any]:
    if issubclass(origin, Mapping):
        value = arguments[1] if len(arguments) == 2 else Any
        return {"type": "object", "additionalProperties": type_schema(value) or True}
    if issubclass(origin, Sequence) and arguments:  # list[X], tuple[X, ...], tuple[X, Y]
        items = [argument for argument in arguments if argument is not Ellipsis]
        one = type_schema(items[0]) if len(set(items)) == 1 else {"anyOf": [type_schema(i) for i in items]}
        return {"type": "array", "items": one}
    return _class_schema(origin)


def _class_schema(cls: type) -> dict[str, Any]:
    if issubclass(cls, Enum):
        return {"enum": [member.value for member in cls]}
    if is_dataclass(cls):
        return schema_of(cls)
    if issubclass(cls, datetime | date):
        return {"type": "string", "format": "date-time" if issubclass(cls, datetime) else "date"}
    for scalar, name in _SCALARS.items():
        if issubclass(cls, scalar):
            return {"type": name}
    if issubclass(cls, Mapping):
        return {"type": "object"}
    if issubclass(cls, Sequence):
        return {"type": "array"}
    return {}


def _without_none(hint: Any) -> Any:
    """`X | None` → X: an envelope's answer and a spread field are objects when they are there at all."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kept = [argument for argument in typing.get_args(hint) if argument is not type(None)]
        return functools.reduce(operator.or_, kept)
    return hint


def _description(cls: type) -> str:
    """The class's docstring, unless dataclass wrote it (its signature)."""
    doc = cls.__dict__.get("__doc__") or ""
    return "" if doc.startswith(f"{cls.__name__}(") else " ".join(inspect.cleandoc(doc).split())


def keys_of(cls: type) -> list[str]:
    """The top-level keys of `cls`'s JSON, in order."""
    return list(schema_of(cls)["properties"])


def declared_types() -> dict[str, type]:
    """Every declared class the API exports (its reports and the answers they hold), by name."""
    exported = {name: getattr(reports, name) for name in (*reports.__all__, *reports.ELSEWHERE)}
    return {name: value for name, value in sorted(exported.items())
            if isinstance(value, type) and is_dataclass(value) and issubclass(value, Declared)}


def schemas() -> dict[str, dict[str, Any]]:
    """The schema of every declared type the API exports, as schemas.json stores it."""
    return {name: schema_of(cls) for name, cls in declared_types().items()}


@functools.cache
def stored_schemas() -> dict[str, dict[str, Any]]:
    """schemas.json: what `schemas()` gave when the page and the file were last written."""
    return bounded_loads(STORED.read_bytes(), max_bytes=STATE_BYTES)  # package data, read through the one reader


def output_schema(name: str) -> dict[str, Any]:
    """The stored JSON schema of the report type `name` (e.g. "RunReport"); KeyError for a type it lacks."""
    return stored_schemas()[name]
