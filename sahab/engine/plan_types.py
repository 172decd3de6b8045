"""What a plan is made of: the engine's data types and the wire constants they carry. Imports nothing else of
the engine, so every part of it (and the readiness model, the reports, tests) can use them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Property-value signatures of Pulumi's wire format (sdk/go/common/resource/sig).
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
SIG_ASSET = "c44067f5952c0a294b673a41bacd8c17"
SIG_ARCHIVE = "0def7320c3a5731c473e5ecbe6d01bc7"
SIG_OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
# The engine's unknown value (pulumi sdk/python/lib/pulumi/runtime/rpc.py UNKNOWN).
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
# A value nobody can know offline (where an undeclared existing resource lives), in a form a program can carry:
# the SDK hands the exact sentinel to a program as None (update) or an Unknown object (preview), which a lookup's
# result type refuses. Whatever a program builds from it still holds the sentinel, and the engine records any
# string holding it as unknown.
UNKNOWABLE = f"unknown-offline-{UNKNOWN}"
# The mark on the outputs of a StackReference to a stack that is not here, in the update run: the program's
# executor then answers every output name with UNKNOWABLE (langhost/sahab-language-python-exec).
UNREADABLE = "__sahab_unreadable_stack__"


def is_unknown(value: object) -> bool:
    """The engine's unknown, or a string built from one."""
    return isinstance(value, str) and UNKNOWN in value

# The two runs of a program: `pulumi preview` (provider outputs unknown), then the run `pulumi up` would make
# (every provider output a value of its declared type).
PREVIEW = "preview"
UPDATE = "update"


@dataclass
class PlannedResource:
    urn: str
    type: str
    name: str
    parent: str | None
    provider: str | None  # URN of the provider resource that manages it (explicit or default)
    inputs: dict[str, Any]
    custom: bool = True
    id: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    source: tuple[str, int] | None = None  # file and line where the program constructed it

    def contract(self) -> dict[str, Any]:
        return {"urn": self.urn, "type": self.type, "name": self.name, "parent": self.parent,
                "provider": self.provider, "inputs": self.inputs}


@dataclass
class Plan:
    project: str
    stack: str
    config: dict[str, Any]
    resources: list[PlannedResource]
    outputs: dict[str, Any]
    warnings: list[str]
    program_dir: Path
    secret_outputs: dict[str, Any] = field(default_factory=dict, repr=False)  # wire format, for StackReferences
    phase: str = PREVIEW
    # What the user should fix in the setup (a plaintext credential, a missing virtualenv), as against
    # `warnings`, which are the program's own diagnostics (pulumi.log.warn, SDK deprecations).
    notices: list[str] = field(default_factory=list)
    # Where each resource is, by its names, ids and ARNs: (AWS region, Azure location). A stack that reads this
    # one's outputs places lookups of these resources by it.
    places: dict[str, tuple[str | None, str | None]] = field(default_factory=dict, repr=False)
    # A preview whose program failed in the update run: why (what only `pulumi up` computes stays unknown).
    update_failure: str | None = None
    # The stacks this run read through StackReferences, as deployed, by (project folder, stack name): readiness
    # judges a burst stack together with its owner's plan, which the run has already made.
    deployed: dict[tuple[str, str], Plan] = field(default_factory=dict, repr=False)
    # The texts of the stack's secret settings (StackConfig.secret_texts): what is printed from this plan has
    # them replaced by [secret] (sahab.project.scrub); the policies judge the values themselves.
    secret_texts: frozenset[str] = field(default_factory=frozenset, repr=False)

    @property
    def preview(self) -> bool:
        return self.phase == PREVIEW

    def contract(self) -> dict[str, Any]:
        from sahab.project import scrub
        from sahab.schema import versions

        return {**versions(), "project": self.project, "stack": self.stack,
                "config": self.config, "resources": scrub([r.contract() for r in self.resources], self.secret_texts)}
