"""The careless and hostile fleets of issue 18, each as a change to a small valid fleet."""

from tests.foundation.fleets import hybrid_fleet


def fleet_with(mutate) -> dict:
    data = hybrid_fleet()
    mutate(data)
    return data
