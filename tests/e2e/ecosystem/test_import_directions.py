"""Imports point one way (DESIGN.md): benchmarks read no test code, components read only the workload's public
top-level modules (the contracts the image and the Job share, e.g. workloads.node_fabric), never its benchmark
or trainer internals, and the workload reads neither sahab nor components. Every import counts, lazy ones too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _imports(folder: str) -> list[tuple[str, str]]:
    found = []
    for file in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found += [(str(file.relative_to(ROOT)), node.module)]
                found += [(str(file.relative_to(ROOT)), f"{node.module}.{a.name}") for a in node.names]
            elif isinstance(node, ast.Import):
                found += [(str(file.relative_to(ROOT)), a.name) for a in node.names]
    return found


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("benchmarks", ("tests",)),
    ("workloads", ("sahab", "components")),
])
def test_a_folder_imports_nothing_it_must_not(folder, forbidden):
    wrong = [(f, m) for f, m in _imports(folder) if any(_under(m, p) for p in forbidden)]
    assert wrong == []


def test_components_read_only_the_workloads_public_modules():
    internals = ("workloads.bench", "workloads.train", "workloads.commands")
    wrong = [(f, m) for f, m in _imports("components") if any(_under(m, p) for p in internals)]
    assert wrong == []
