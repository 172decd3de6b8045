"""Sahab. Installed, the repository's components/, policies/ and workloads/ are this package's subpackages
(pyproject.toml's package-dir), so the distribution claims no generic top-level name. In a checkout they are
folders beside this one: the repository's root joins this package's path, and `sahab.components` and the others
are found there (its other folders hold no package Sahab imports)."""

from pathlib import Path

_HERE = Path(__file__).resolve().parent
if not (_HERE / "components").is_dir():  # a checkout: the three folders sit beside this package, at its root
    __path__.append(str(_HERE.parent))
