"""Reading the YAML files a user writes (Pulumi.yaml, Pulumi.<stack>.yaml) as Pulumi does: UTF-8 text holding
JSON values only. A file that is not UTF-8, or a value YAML types beyond JSON (a date such as `2020-01-05`, an
impossible one such as `2020-13-45`, `!!binary`, `!!set`, a NaN), is a ConfigError naming the file and, for a
value, its key path: never a UnicodeDecodeError, a TypeError or a ValueError from deep inside a run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from sahab.errors import ConfigError


class _Foreign:
    """A value YAML types beyond JSON, kept as written until the walk names where it is."""

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text  # text: how the value is shown in an error


class JsonValuesLoader(yaml.SafeLoader):
    """yaml.SafeLoader whose timestamps, binaries, sets and ordered pairs are left unconstructed (_Foreign):
    constructing them is where PyYAML raises (month must be in 1..12) or builds what JSON cannot hold. A key
    written twice in one mapping is an error (YAML 1.2 requires unique keys), not a silent last-one-wins."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` may be overridden key by key
            key, line = (key_node.tag, key_node.value), key_node.start_mark.line + 1
            if key in first:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key_node.value!r} is written twice (first on line {first[key]})",
                    key_node.start_mark)
            first[key] = line
        return super().construct_mapping(node, deep)


def _foreign(kind: str):
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> _Foreign:
        line = node.start_mark.line + 1
        shown = repr(node.value) if isinstance(node, yaml.ScalarNode) else f"the value on line {line}"
        return _Foreign(kind, shown)

    return construct


for _tag, _kind in (("timestamp", "date or time"), ("binary", "!!binary value"), ("set", "!!set"),
                    ("omap", "!!omap"), ("pairs", "!!pairs")):
    JsonValuesLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _foreign(_kind))


def read_utf8(path: Path, what: str) -> str:
    """The file's text; a file that is not UTF-8 is a ConfigError naming it."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(str(path), f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); a {what} "
                                     "must be saved as UTF-8") from None


def load_json_yaml(path: Path, what: str) -> Any:
    """The file's one YAML document, holding JSON values only (see the module's docstring)."""
    text = read_utf8(path, what)
    if "\x00" in text:
        raise ConfigError(str(path), f"not a YAML text file (it holds NUL bytes); a {what} is UTF-8 YAML")
    loader = JsonValuesLoader(text)  # what yaml.load does, with the expanded size checked before constructing
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded(node, {}, set()) > MAX_VALUES:
            raise ConfigError(str(path), f"its aliases expand to more than {MAX_VALUES:,} values; a {what} this "
                                         "large is not a configuration")
        doc = loader.construct_document(node)
    finally:
        loader.dispose()
    _check(doc, "", path, set())
    return doc


MAX_VALUES = 1_000_000  # values of a file with its aliases (*name) expanded, as a reader of the JSON would see it


def _expanded(node: yaml.Node, sizes: dict[int, int], open_: set[int]) -> int:
    """How many values `node` is once every alias is expanded (each shared node is counted once per use, but
    computed once); an alias cycle counts as too many."""
    if id(node) in sizes:
        return sizes[id(node)]
    if id(node) in open_:
        return MAX_VALUES + 1  # a value that contains itself: no JSON document is that
    open_.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        total = 1 + sum(_expanded(item, sizes, open_) for item in node.value)
    elif isinstance(node, yaml.MappingNode):
        total = 1 + sum(_expanded(k, sizes, open_) + _expanded(v, sizes, open_) for k, v in node.value)
    else:
        total = 1
    open_.discard(id(node))
    sizes[id(node)] = min(total, MAX_VALUES + 1)
    return sizes[id(node)]


def _check(value: Any, where: str, path: Path, seen: set[int]) -> None:
    """Walk the document; a list or mapping an alias shares is walked once (an alias bomb stays linear)."""
    if isinstance(value, dict | list):
        if id(value) in seen:
            return
        seen.add(id(value))
    at = f"{path}: {where}" if where else str(path)
    if isinstance(value, _Foreign):
        hint = " (a date needs quotes: \"2020-01-05\")" if value.kind == "date or time" else ""
        raise ConfigError(at, f"{value.text} is a YAML {value.kind}, not a JSON value; allowed: strings, "
                              f"numbers, booleans, null, lists and mappings{hint}")
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, _Foreign) or not isinstance(key, str | int | float | bool | type(None)):
                raise ConfigError(at, f"the key {getattr(key, 'text', repr(key))} is not a string")
            _check(inner, f"{where}.{key}" if where else str(key), path, seen)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            _check(inner, f"{where}[{i}]", path, seen)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(at, f"{value!r} is not a JSON number; allowed: a finite number")
    elif not isinstance(value, str | int | float | bool | type(None)):
        raise ConfigError(at, f"a {type(value).__name__} is not a JSON value")
