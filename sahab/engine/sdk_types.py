"""What a provider SDK declares its resources and functions return, read from the SDK's own source files.

The program's own virtualenv decides which provider versions it runs with, so the types come from the files
installed there, read as text and never imported into Sahab: a resource class's output getters
(`def arn(self) -> pulumi.Output[str]`, wire name in `@pulumi.getter(name=...)`), a function's `Get...Result`
class, and the `@pulumi.output_type` classes they name. Python codegen lays these out the same way in every
provider (pulumi/pulumi pkg/codegen/python): the package's `__init__.py` maps each resource token to its module
and class (`_utilities.register(resource_modules=...)`), a module's file is the snake-case name of its member
(`PyName`), nested types live in the module's `outputs.py` (`'outputs.X'`, or `'_other.module.outputs.X'`).

A type is a small tree: "str", "int", "float", "bool", "any", ("list", T), ("map", T), ("object", Ref).
"""

from __future__ import annotations

import ast
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sahab.policies.syntax import parse

SCALARS = {"str": "str", "int": "int", "float": "float", "bool": "bool", "Any": "any", "object": "any",
           "dict": ("map", "any"), "list": ("list", "any")}


@dataclass(frozen=True)
class Ref:
    """An output type class: the file it is defined in and its name."""

    file: Path
    name: str


@dataclass(frozen=True)
class Field:
    type: Any
    optional: bool


class SdkTypes:
    """Declared types of the provider packages found in `site_packages` (the program's environment)."""

    def __init__(self, site_packages: tuple[Path, ...]):
        self.site_packages = site_packages
        self._lock = threading.Lock()
        self._registry: dict[str, dict[str, tuple[str, str]] | None] = {}  # package -> token -> (fqn, class)
        self._texts: dict[Path, str | None] = {}
        self._classes: dict[Ref, dict[str, Field] | None] = {}

    # ---- entry points ----------------------------------------------------------------------------------
    def resource_outputs(self, token: str) -> dict[str, Field] | None:
        """Wire name -> declared type of every output of the resource type `token`, or None if not found."""
        package = token.split(":", 1)[0]
        root = self._package_dir(package)
        if root is None:
            return None
        found = self._registered(package, root).get(token)
        if found is None:
            return None
        fqn, cls = found
        module_dir = root.parent.joinpath(*fqn.split("."))
        mod_part = token.split(":")[1].rsplit("/", 1)[-1] if "/" in token.split(":")[1] else cls
        for stem in dict.fromkeys((py_name(mod_part), py_name(cls), cls, mod_part)):
            fields = self.fields(Ref(module_dir / f"{stem}.py", cls), getter_kind="Output")
            if fields is not None:
                return fields
        return None

    def function_result(self, token: str) -> dict[str, Field] | None:
        """Wire name -> declared type of every field an invoke's result has, or None if not found."""
        try:
            package, module, function = token.split(":")
        except ValueError:
            return None
        root = self._package_dir(package)
        if root is None:
            return None
        parts = [p for p in module.split("/") if p]
        if parts and parts[-1] == function:  # aws-style `ec2/getAmi`: the function's own segment
            parts = parts[:-1]
        if parts[:1] == ["index"]:
            parts = parts[1:]
        folder = root.joinpath(*parts)
        name = function[:1].upper() + function[1:] + "Result"
        for stem in dict.fromkeys((py_name(function), function)):
            fields = self.fields(Ref(folder / f"{stem}.py", name), getter_kind="plain")
            if fields is not None:
                return fields
        return None

    def fields(self, ref: Ref, getter_kind: str = "plain") -> dict[str, Field] | None:
        """The getters of class `ref`: wire name -> Field. `getter_kind` "Output" unwraps `pulumi.Output[...]`."""
        with self._lock:
            if ref in self._classes:
                return self._classes[ref]
        text = self._text(ref.file)
        found = None if text is None else _class_fields(text, ref, getter_kind == "Output")
        with self._lock:
            self._classes[ref] = found
        return found

    # ---- reading the package ---------------------------------------------------------------------------
    def _package_dir(self, package: str) -> Path | None:
        name = "pulumi_" + package.replace("-", "_")
        for base in self.site_packages:
            candidate = base / name
            if (candidate / "__init__.py").is_file():
                return candidate
        return None

    def _registered(self, package: str, root: Path) -> dict[str, tuple[str, str]]:
        with self._lock:
            if package in self._registry:
                return self._registry[package] or {}
        text = self._text(root / "__init__.py") or ""
        tokens: dict[str, tuple[str, str]] = {}
        found = re.search(r'resource_modules\s*=\s*"""(.*?)"""', text, re.S)
        if found:
            try:
                modules = json.loads(found.group(1))
            except ValueError:
                modules = []
            for module in modules:
                for token, cls in (module.get("classes") or {}).items():
                    tokens[token] = (module.get("fqn", ""), cls)
        with self._lock:
            self._registry[package] = tokens
        return tokens

    def _text(self, file: Path) -> str | None:
        with self._lock:
            if file in self._texts:
                return self._texts[file]
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        with self._lock:
            self._texts[file] = text
        return text


_GETTER = re.compile(
    r'@pulumi\.getter(?:\(\s*name\s*=\s*"(?P<wire>[^"]+)"\s*\))?[ \t]*\n'
    r'(?:[ \t]*@[^\n]*\n)*'
    r'[ \t]*def (?P<py>\w+)\(self\)\s*->\s*(?P<ann>[^\n]+?):[ \t]*\n')


_TOP_LEVEL = re.compile(r"^(?=[^\s#])", re.M)  # a line that is not indented, blank or a comment


def _class_header(text: str, name: str) -> re.Match | None:
    """Where `class <name>` starts a line of `text`, found with str.find: an SDK's outputs.py is megabytes, and a
    regex anchored at every line start scanned it all again for each class a plan reads."""
    prefix = f"class {name}"
    header = re.compile(rf"{re.escape(prefix)}\b[^\n]*:\s*$", re.M)
    newline = -1  # the newline before the line tried next (-1: the text's start)
    while True:
        found = header.match(text, newline + 1) if text.startswith(prefix, newline + 1) else None
        if found:
            return found
        newline = text.find("\n" + prefix, newline + 1)
        if newline < 0:
            return None


def _class_fields(text: str, ref: Ref, outputs: bool) -> dict[str, Field] | None:
    start = _class_header(text, ref.name)
    if start is None:
        return None
    end = _TOP_LEVEL.search(text, start.end())  # searched in place: a slice would copy the rest of the file
    body = text[start.end(): end.start() if end else len(text)]
    fields: dict[str, Field] = {}
    for match in _GETTER.finditer(body):
        try:
            node = _parse_annotation(match.group("ann").strip())
        except SyntaxError:
            continue
        if outputs:
            if not (isinstance(node, ast.Subscript) and _dotted(node.value).endswith("Output")):
                continue
            node = node.slice
        typ, optional = _type(node, ref)
        fields[match.group("wire") or match.group("py")] = Field(typ, optional)
    return fields


def _parse_annotation(text: str) -> ast.expr:
    return parse(text, mode="eval").body  # read on the monitor's thread pool: parsed one thread at a time


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _type(node: ast.AST, ref: Ref) -> tuple[Any, bool]:
    """(type, optional) of an annotation node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a forward reference: 'outputs.X'
        try:
            return _type(_parse_annotation(node.value), ref)
        except SyntaxError:
            return "any", False
    if isinstance(node, ast.Subscript):
        outer = _dotted(node.value).rsplit(".", 1)[-1]
        inner = node.slice
        args = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if outer == "Literal":
            return "str", False
        if outer == "Optional":
            return _type(args[0], ref)[0], True
        if outer in ("Sequence", "List", "list"):
            return ("list", _type(args[0], ref)[0]), False
        if outer in ("Mapping", "Dict", "dict"):
            return ("map", _type(args[-1], ref)[0]), False
        if outer == "Union":
            optional = any(isinstance(a, ast.Constant) and a.value is None for a in args)
            real = [a for a in args if not (isinstance(a, ast.Constant) and a.value is None)]
            return (_type(real[0], ref)[0] if real else "any"), optional
        return "any", False
    name = _dotted(node)
    last = name.rsplit(".", 1)[-1]
    if last in SCALARS and (name == last or name.startswith(("_builtins.", "builtins.", "typing."))):
        return SCALARS[last], False
    if "." in name:  # outputs.X, _root_outputs.X, _meta.v1.outputs.X
        module, cls = name.rsplit(".", 1)
        parts = module.split(".")
        folder = ref.file.parent
        if parts[0] == "_root_outputs":
            folder, parts = _package_root(ref.file), ["outputs"]
        elif parts[0].startswith("_") and parts[0] != "_enums":
            folder, parts = _package_root(ref.file) / parts[0][1:], parts[1:]
        return ("object", Ref(folder.joinpath(*parts[:-1], parts[-1] + ".py"), cls)), False
    return "str" if last and last[:1].isupper() else "any", False  # an enum of the same module: its values


def _package_root(file: Path) -> Path:
    for parent in file.parents:
        if parent.name.startswith("pulumi_"):
            return parent
    return file.parent


def py_name(name: str) -> str:
    """A camelCase name as Python codegen spells it (pulumi/pulumi pkg/codegen/python/python.go `pyName`)."""
    out: list[str] = []
    current = ""
    state = "first"
    for char in name:
        if not (char.isalnum() or char == "_"):
            char = "_"
        if state == "first":
            state = "upper" if char.isupper() else "lower"
            current += char.lower()
        elif state == "upper":
            state = "acronym" if char.isupper() else "lower"
            current += char.lower()
        elif state == "acronym":
            if char.isupper():
                current += char.lower()
            elif char.isdigit():
                state = "lower"
                current += char
            else:
                state = "lower"
                out.append(current[:-1])
                current = current[-1] + char
        else:  # lower or number
            if char.isupper():
                out.append(current)
                current = char.lower()
                state = "upper"
            else:
                current += char
    out.append(current)
    return "_".join(p for p in out if p)
