"""Sahab. Installed, the repository's components/, policies/ and workloads/ are this package's subpackages
(pyproject.toml's package-dir), so the distribution claims no generic top-level name. In a checkout they are
folders beside this one: the repository's root joins this package's path, and `sahab.components` and the others
are found there (its other folders hold no package Sahab imports)."""

from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "components" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))
