"""The suite collects on a clean clone: pytest's default import mode names a test module after its file, qualified
by the packages (folders with __init__.py) it sits in, so two test files whose names come out equal stop the whole
run at collection."""

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    """The name pytest's prepend import mode gives a test file."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def test_test_module_names_are_unique():
    by_name = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        by_name[module_name(path)].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not clashes, f"test modules pytest would import under one name: {clashes}"
