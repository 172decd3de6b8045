"""Builds the fleet's in-country registries: the ECR pull-through cache and the ACR with its cache rules.

Only for cluster kinds this stack creates clusters of (a burst stack uses the owning stack's registries).
"""

from __future__ import annotations

from typing import Any


def build_registries(fleet: Any) -> dict[str, Any]:
    return {}
