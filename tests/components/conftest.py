"""Each real stack is planned once per session (plans are deterministic)."""

import pytest

from tests.helpers import Planned, planned_stack


@pytest.fixture(scope="session")
def prod() -> Planned:
    return planned_stack("prod")


@pytest.fixture(scope="session")
def burst() -> Planned:
    return planned_stack("burst")


@pytest.fixture(scope="session")
def smb() -> Planned:
    return planned_stack("smb")


@pytest.fixture
def azure_offerings(tmp_path, monkeypatch):
    """Writes Azure offerings snapshots for a test (components.offerings reads them): test data in the Resource
    SKUs shape, standing in for the real ones, which the repository does not hold."""
    import json

    from sahab.components import offerings

    monkeypatch.setattr(offerings, "AZURE_DIR", tmp_path)
    offerings.snapshot.cache_clear()

    def write(location: str, skus: dict) -> None:
        (tmp_path / f"{location}.json").write_text(json.dumps({
            "cloud": "azure", "location": location, "source": "test data", "data_as_of": "2026-11-01",
            "skus": skus}))
        offerings.snapshot.cache_clear()

    yield write
    offerings.snapshot.cache_clear()
