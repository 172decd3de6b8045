"""How each chart joins an image reference from its values: one rule per way of joining, used both to write the
values Sahab gives a chart and to read back the reference the chart will pull (the seed list, the readiness
verdict), so the two can never disagree.

Each rule is a pair: `render(ref)` -> the values fragment that makes the chart pull exactly `ref`, and
`pulls(fragment)` -> the reference the chart renders from a fragment, as its templates do (the chart fact sheets in
components/charts/ name the template each rule reads). A `Ref` is what is pulled: repository (host/path), tag and,
when one is recorded, the digest; the chart may spell the tag differently in its values (node-exporter's
`-distroless` variant, the GPU operator's driver OS suffix), which is the rule's business.

Pure functions, no Pulumi.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# OCI distribution spec: name components, tag, digest (github.com/distribution/reference, reference.go)
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST = r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])"
REFERENCE = re.compile(rf"^(?:{_HOST}(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*"
                       r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$")


@dataclass(frozen=True)
class Ref:
    """An image as a node pulls it: `repository:tag[@digest]`."""

    repository: str  # host/path
    tag: str
    digest: str | None = None

    @property
    def name(self) -> str:
        """`repository:tag`, the key of a recorded digest (stacks/digests.lock)."""
        return f"{self.repository}:{self.tag}"

    def __str__(self) -> str:
        return self.name + (f"@{self.digest}" if self.digest else "")


def valid_reference(text: str) -> bool:
    """An OCI reference a container runtime accepts: name, optional tag, optional sha256 digest."""
    return isinstance(text, str) and len(text) <= 4096 and bool(REFERENCE.match(text))


def split_reference(text: str) -> Ref:
    """`host/path:tag@sha256:...` -> Ref (the tag is empty when the reference names none)."""
    name, _, digest = text.partition("@")
    repository, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        repository, tag = name, ""
    return Ref(repository, tag, digest or None)


def _str(fragment: Any, key: str) -> str:
    value = fragment.get(key) if isinstance(fragment, dict) else None
    return value if isinstance(value, str) else ""


def _tail(tag: str, digest: str) -> str:
    return (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")


# ---- the rules ---------------------------------------------------------------------------------------------
def _registry_split(ref: Ref) -> tuple[str, str]:
    registry, _, path = ref.repository.partition("/")
    return registry, path


def render_registry_sha(ref: Ref) -> dict:
    """kube-prometheus-stack's own images and Grafana's: `{registry, repository, tag, sha}`, `sha` the bare hex
    (the template writes `@sha256:{{ sha }}`)."""
    registry, path = _registry_split(ref)
    value = {"registry": registry, "repository": path, "tag": ref.tag}
    return {**value, "sha": ref.digest.removeprefix("sha256:")} if ref.digest else value


def pulls_registry_sha(fragment: dict) -> str:
    sha = _str(fragment, "sha")
    return f"{_str(fragment, 'registry')}/{_str(fragment, 'repository')}" + _tail(
        _str(fragment, "tag"), f"sha256:{sha}" if sha else "")


def render_registry_sha_whole(ref: Ref) -> dict:
    """kube-state-metrics: `{registry, repository, tag, sha}`, `sha` appended after `@` as given, so `sha256:<hex>`."""
    registry, path = _registry_split(ref)
    value = {"registry": registry, "repository": path, "tag": ref.tag}
    return {**value, "sha": ref.digest} if ref.digest else value


def pulls_registry_sha_whole(fragment: dict) -> str:
    return f"{_str(fragment, 'registry')}/{_str(fragment, 'repository')}" + _tail(
        _str(fragment, "tag"), _str(fragment, "sha"))


DISTROLESS = "-distroless"


def render_registry_variant(ref: Ref) -> dict:
    """prometheus-node-exporter: `{registry, repository, tag, distroless, digest}`; the chart appends `-distroless`
    to the tag when `distroless` is true, then `@digest`."""
    registry, path = _registry_split(ref)
    variant = ref.tag.endswith(DISTROLESS)
    value = {"registry": registry, "repository": path, "tag": ref.tag.removesuffix(DISTROLESS),
             "distroless": variant}
    return {**value, "digest": ref.digest} if ref.digest else {**value, "digest": ""}


def pulls_registry_variant(fragment: dict) -> str:
    tag = _str(fragment, "tag") + (DISTROLESS if fragment.get("distroless") is True else "")
    return f"{_str(fragment, 'registry')}/{_str(fragment, 'repository')}" + _tail(tag, _str(fragment, "digest"))


def render_nvidia(ref: Ref) -> dict:
    """NVIDIA's GPU operator: `{repository, image, version}` joined `repository/image:version` (Helm and the
    operator alike); a digest rides in the version (`v26.7.0@sha256:...`), which both joins keep valid."""
    repository, _, image = ref.repository.rpartition("/")
    return {"repository": repository, "image": image, "version": ref.tag + (f"@{ref.digest}" if ref.digest else "")}


def pulls_nvidia(fragment: dict) -> str:
    version = _str(fragment, "version")
    separator = "@" if version.startswith("sha256:") else ":"  # the operator's own join of a bare digest
    return f"{_str(fragment, 'repository')}/{_str(fragment, 'image')}{separator}{version}"


def render_nvidia_driver(ref: Ref) -> dict:
    """The operator's driver: it appends `-<node OS>` to the version unless the version holds a digest. `ref` is
    the pulled image (`595.91.07-ubuntu22.04`): without a digest the values carry the bare driver version, with
    one the whole pulled tag and the digest."""
    repository, _, image = ref.repository.rpartition("/")
    if ref.digest:
        return {"repository": repository, "image": image, "version": f"{ref.tag}@{ref.digest}"}
    return {"repository": repository, "image": image, "version": ref.tag.rsplit("-", 1)[0]}


def pulls_nvidia_driver(fragment: dict, os_tag: str) -> str:
    joined = pulls_nvidia(fragment)
    return joined if "sha256:" in joined else f"{joined}-{os_tag}"


def render_repository_tag(ref: Ref) -> dict:
    """`{repository, tag}` joined `repository:tag` (node-feature-discovery, Kueue, cluster-autoscaler): a digest
    rides in the tag (`v0.19.0@sha256:...`), which makes the joined reference digest-pinned."""
    return {"repository": ref.repository, "tag": ref.tag + (f"@{ref.digest}" if ref.digest else "")}


def pulls_repository_tag(fragment: dict) -> str:
    return f"{_str(fragment, 'repository')}:{_str(fragment, 'tag')}"


def render_cilium(ref: Ref) -> dict:
    """Cilium: `{repository, tag, digest, useDigest}`; the chart appends `@digest` only with `useDigest`, so it
    is on exactly when Sahab has a recorded digest (else the chart's own default digest would be pinned, one no
    registry of the fleet may hold)."""
    return {"repository": ref.repository, "tag": ref.tag, "digest": ref.digest or "", "useDigest": bool(ref.digest)}


def pulls_cilium(fragment: dict) -> str:
    digest = _str(fragment, "digest") if fragment.get("useDigest") is True else ""
    return _str(fragment, "repository") + _tail(_str(fragment, "tag"), digest)


OPERATOR_CLOUD = "-generic"  # the operator variant of a cluster with none of eni/azure/alibabacloud enabled


def render_cilium_operator(ref: Ref) -> dict:
    """cilium-operator: the chart joins `<repository>-<cloud><suffix>:<tag>@<cloud>Digest`. `digest` repeats the
    generic digest for readers of `{repository, tag, digest}` maps (the policy pack); the chart ignores it."""
    return {"repository": ref.repository.removesuffix(OPERATOR_CLOUD), "suffix": "", "tag": ref.tag,
            "genericDigest": ref.digest or "", "digest": ref.digest or "", "useDigest": bool(ref.digest)}


def pulls_cilium_operator(fragment: dict) -> str:
    digest = _str(fragment, "genericDigest") if fragment.get("useDigest") is True else ""
    return f"{_str(fragment, 'repository')}{OPERATOR_CLOUD}{_str(fragment, 'suffix')}" + _tail(
        _str(fragment, "tag"), digest)


def render_reference(ref: Ref) -> str:
    """A pod spec's own `image`: the reference itself."""
    return str(ref)


def pulls_reference(fragment: str) -> str:
    return fragment if isinstance(fragment, str) else ""


@dataclass(frozen=True)
class Rule:
    render: Callable[[Ref], Any]
    pulls: Callable[..., str]


RULES: dict[str, Rule] = {
    "registry-sha": Rule(render_registry_sha, pulls_registry_sha),
    "registry-sha-whole": Rule(render_registry_sha_whole, pulls_registry_sha_whole),
    "registry-variant": Rule(render_registry_variant, pulls_registry_variant),
    "nvidia": Rule(render_nvidia, pulls_nvidia),
    "nvidia-driver": Rule(render_nvidia_driver, pulls_nvidia_driver),
    "repository-tag": Rule(render_repository_tag, pulls_repository_tag),
    "cilium": Rule(render_cilium, pulls_cilium),
    "cilium-operator": Rule(render_cilium_operator, pulls_cilium_operator),
    "reference": Rule(render_reference, pulls_reference),
}
