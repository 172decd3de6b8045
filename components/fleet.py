"""Fleet: one stack's whole fleet, composed from the validated config."""

from __future__ import annotations

import pulumi

from components.config import FleetConfig


class Fleet(pulumi.ComponentResource):
    """Composes region-pinned providers, clusters, node pools, storage and the Kubernetes platform.

    Each area comes from its own component module; an area whose component is not part of Sahab yet is
    simply absent from the plan."""

    def __init__(self, name: str, config: FleetConfig, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:index:Fleet", name, None, opts)
        self.config = config
        self.exports: dict[str, pulumi.Input] = {
            "environment": config.environment,
            "allowedRegions": list(config.residency.allowed_regions),
        }
        self.register_outputs(self.exports)
