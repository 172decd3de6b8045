"""Sahab's one version: pyproject.toml's `[project] version`, as the CLI, the reports and the pack state it.

Defined in workloads/version.py, which the workload image carries (its bench and training documents state the
version too, and it has no `sahab` package); this is the same lookup. The policy pack cannot import Sahab (it is
published alone), so policies/PulumiPolicy.yaml repeats the number and a test keeps the two equal."""

from sahab.workloads.version import DISTRIBUTION, PYPROJECT, pyproject_version, version

__all__ = ["DISTRIBUTION", "PYPROJECT", "pyproject_version", "version"]
