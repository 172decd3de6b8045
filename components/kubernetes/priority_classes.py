"""TrainingPriorities: one PriorityClass per training tier, so critical runs preempt preemptible ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_kubernetes as k8s
from sahab.components.kubernetes.common import MANAGED_BY, Args


@dataclass(frozen=True)
class Tier:
    value: int
    preempts: bool
    description: str


# Well below system-cluster-critical (2e9) so cluster agents always win; apart enough to add tiers between.
TIERS: dict[str, Tier] = {
    "critical": Tier(100_000, True, "Sahab training, critical tier: may preempt standard and preemptible runs."),
    "standard": Tier(10_000, True, "Sahab training, standard tier: may preempt preemptible runs."),
    "preemptible": Tier(1_000, False, "Sahab training, preemptible tier: never preempts; yields to the others."),
}


def priority_class_name(tier: str) -> str:
    """The PriorityClass a team's training pods name (`priorityClassName`)."""
    if tier not in TIERS:
        raise ValueError(f"unknown training tier {tier!r}; allowed: {', '.join(TIERS)}")
    return f"sahab-training-{tier}"


class TrainingPrioritiesArgs(Args):
    tiers: tuple[Literal["critical", "standard", "preemptible"], ...] = ("critical", "standard", "preemptible")
    """Tiers to create. Default: all three (critical, standard, preemptible)."""


class TrainingPriorities(pulumi.ComponentResource):
    """Cluster-wide PriorityClasses for the training tiers; none is the global default."""

    def __init__(self, name: str, args: TrainingPrioritiesArgs | None = None,
                 opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:TrainingPriorities", name, None, opts)
        args = args or TrainingPrioritiesArgs()
        self.names: dict[str, pulumi.Output[str]] = {}
        for tier in args.tiers:
            spec = TIERS[tier]
            pc = k8s.scheduling.v1.PriorityClass(
                f"{name}-{tier}",
                metadata={"name": priority_class_name(tier), "labels": MANAGED_BY},
                value=spec.value,
                global_default=False,
                preemption_policy="PreemptLowerPriority" if spec.preempts else "Never",
                description=spec.description,
                opts=pulumi.ResourceOptions(parent=self))
            self.names[tier] = pc.metadata.name
        self.register_outputs({"names": self.names})
