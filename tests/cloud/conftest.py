"""Each real stack is planned once per session (plans are deterministic)."""

import pytest

from .helpers import Planned, planned_stack


@pytest.fixture(scope="session")
def prod() -> Planned:
    return planned_stack("prod")


@pytest.fixture(scope="session")
def burst() -> Planned:
    return planned_stack("burst")


@pytest.fixture(scope="session")
def smb() -> Planned:
    return planned_stack("smb")
