"""`sahab registry pin`: record the digest of every reference of a stack's seed list, as its registry answers it,
in the stack config folder's digests.lock (`<in-country reference> sha256:<hex>`). Nothing else writes that file:
no digest is typed in or guessed. Entries of other stacks' registries are kept; a reference pinned again is
replaced. Components then name each image `<reference>@sha256:...`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sahab.components.artifacts import read_digest_lock
from sahab.components.image_refs import split_reference
from sahab.components.registry_plan import Entry
from sahab.registry.client import Registry, RegistryError

HEADER = """\
# Digests of the fleet's artifacts, by in-country reference: `<registry>/<path>:<tag> sha256:<64 hex>` per line.
# Written only by `sahab registry pin --stack S`, from each registry's own answer (the v2 API's
# Docker-Content-Digest), never by hand. Every stack reads it: an image with a recorded digest is referenced as
# <reference>@sha256:..., so a node pulls exactly what was seeded.
"""


def reference_of(entry: Entry) -> str:
    """The in-country reference an entry pins: its target without scheme or digest."""
    return entry.target.removeprefix("oci://").partition("@")[0]


def pin(entries: list[Entry], ca_file: Path | None = None,
        say: Callable[[str], None] = print) -> tuple[dict[str, str], list[str]]:
    """Ask each registry for each reference's digest: (reference -> digest, one failure line per miss)."""
    registries: dict[str, Registry] = {}
    found: dict[str, str] = {}
    failures: list[str] = []
    for entry in entries:
        reference = reference_of(entry)
        if reference in found:
            continue
        ref = split_reference(reference)
        host, _, repository = ref.repository.partition("/")
        registry = registries.setdefault(host, Registry(host, ca_file))
        try:
            found[reference] = registry.digest(repository, ref.tag)
        except RegistryError as exc:
            failures.append(str(exc))
            continue
        say(f"pinned {reference} {found[reference]}")
    return found, failures


def write_lock(path: Path, digests: dict[str, str]) -> dict[str, str]:
    """Merge `digests` into the lock at `path` (other registries' entries stay); returns the whole lock."""
    merged = {**read_digest_lock(path), **digests}
    body = "".join(f"{reference} {digest}\n" for reference, digest in sorted(merged.items()))
    from sahab.workloads.outputs import write_atomic

    write_atomic(path, HEADER + body)
    return merged
