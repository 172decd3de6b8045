"""The fleet's artifacts: every container image and Helm chart Sahab installs, and where each comes from in-country.

One catalog (`CATALOG`) names each artifact with its upstream reference and the version Sahab pins; every
component asks `Images` (one per cluster kind, built from `sahab:fleet.registries`) for the reference it puts in
a pod spec or Helm values, and for its chart. The mapping is the same for every registry:

    <upstream host>/<path>:<tag>   ->   <in-country host>/<alias of the upstream host>/<path>:<tag>

e.g. `quay.io/prometheus/prometheus:v3.7.3` -> `<registry>/quay/prometheus/prometheus:v3.7.3`. That is the
layout of an ECR pull-through cache rule (`ecr_repository_prefix` = alias), of ACR cache rules
(`quay.io/*` -> `quay/*`) and of the on-prem mirror (containerd's hosts.toml sends `quay.io` to
`https://<mirror>/v2/quay`). Upstreams no cache can pull from (nvcr.io; Helm charts, kept as OCI artifacts under
`charts/`; Sahab's own training image) are seeded into the same layout (README: seeding the registry).

Digests: none is invented here. `stacks/digests.lock` (written when the registry is seeded) records the digest
of an upstream reference; a recorded digest is appended as `@sha256:...`, so the cluster pulls exactly what was
seeded. Pull-through caches and mirrors keep manifests byte for byte, so one digest holds in every registry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from components.errors import ConfigError

DIGEST_LOCK = Path(__file__).resolve().parent.parent / "stacks" / "digests.lock"
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


@dataclass(frozen=True)
class Upstream:
    """A public registry the fleet's artifacts come from."""

    host: str
    alias: str  # first path component of its artifacts in every in-country registry
    ecr_url: str | None  # ECR pull-through cache upstream URL; None: ECR cannot cache it, seed it
    acr_cache: bool  # an ACR cache rule can pull from it; False: seed it
    needs_credentials: bool  # the cache must log in to it (a Secrets Manager secret / Key Vault credential set)


UPSTREAMS: dict[str, Upstream] = {u.host: u for u in (
    Upstream("registry.k8s.io", "k8s", "registry.k8s.io", True, False),
    Upstream("quay.io", "quay", "quay.io", True, False),
    Upstream("docker.io", "docker-hub", "registry-1.docker.io", True, True),
    Upstream("ghcr.io", "ghcr", "ghcr.io", True, True),
    Upstream("nvcr.io", "nvcr", None, False, False),
    # Amazon ECR Public: AWS's own EKS images (the EFA device plugin); ECR caches it without a login.
    Upstream("public.ecr.aws", "ecr-public", "public.ecr.aws", False, False),
)}
CHARTS_PREFIX = "charts"


@dataclass(frozen=True)
class Artifact:
    """One image or chart: `upstream` is `host/path` of an image, or a chart's Helm repository URL / OCI ref."""

    name: str
    kind: Literal["image", "chart"]
    upstream: str
    version: str
    component: str
    chart: str | None = None  # charts: the chart's name in its repository

    @property
    def source(self) -> str:
        """The upstream reference as a tool would name it."""
        if self.kind == "chart":
            return self.upstream if self.upstream.startswith("oci://") else f"{self.upstream}#{self.chart}"
        return f"{self.upstream}:{self.version}"

    @property
    def registry(self) -> Upstream | None:
        return UPSTREAMS.get(self.upstream.split("/", 1)[0]) if self.kind == "image" else None

    @property
    def path(self) -> str:
        """Its repository path in every in-country registry."""
        if self.kind == "chart":
            return f"{CHARTS_PREFIX}/{self.chart}"
        host, _, rest = self.upstream.partition("/")
        return f"{UPSTREAMS[host].alias}/{rest}"


def _image(name: str, upstream: str, tag: str, component: str) -> Artifact:
    return Artifact(name, "image", upstream, tag, component)


def _chart(component: str, repository: str, chart: str, version: str) -> Artifact:
    return Artifact(f"{component}-chart", "chart", repository, version, component, chart)


# Tags are Sahab's pins; each one is also set in the chart's values, so the chart pulls exactly these.
CATALOG: dict[str, Artifact] = {a.name: a for a in (
    # kube-prometheus-stack and its subcharts
    _chart("monitoring", "https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack", "88.5.3"),
    _image("prometheus-operator", "quay.io/prometheus-operator/prometheus-operator", "v0.93.0", "monitoring"),
    _image("prometheus-config-reloader", "quay.io/prometheus-operator/prometheus-config-reloader", "v0.93.0",
           "monitoring"),
    _image("webhook-certgen", "registry.k8s.io/ingress-nginx/kube-webhook-certgen", "v1.6.4", "monitoring"),
    _image("prometheus", "quay.io/prometheus/prometheus", "v3.7.3", "monitoring"),
    _image("alertmanager", "quay.io/prometheus/alertmanager", "v0.29.0", "monitoring"),
    _image("thanos", "quay.io/thanos/thanos", "v0.40.1", "monitoring"),
    _image("kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics", "v2.17.0", "monitoring"),
    _image("node-exporter", "quay.io/prometheus/node-exporter", "v1.10.2", "monitoring"),
    _image("grafana", "docker.io/grafana/grafana", "12.3.0", "monitoring"),
    _image("grafana-sidecar", "quay.io/kiwigrid/k8s-sidecar", "1.30.9", "monitoring"),
    _image("grafana-curl", "docker.io/curlimages/curl", "8.16.0", "monitoring"),
    _image("busybox", "docker.io/library/busybox", "1.37.0", "monitoring"),
    # NVIDIA GPU operator (DCGM exporter included) and node feature discovery
    _chart("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v26.7.0"),
    _image("gpu-operator", "nvcr.io/nvidia/gpu-operator", "v26.7.0", "gpu-operator"),
    _image("gpu-operator-validator", "nvcr.io/nvidia/cloud-native/gpu-operator-validator", "v26.7.0",
           "gpu-operator"),
    _image("nvidia-driver", "nvcr.io/nvidia/driver", "580.95.05", "gpu-operator"),
    _image("driver-manager", "nvcr.io/nvidia/cloud-native/k8s-driver-manager", "v0.9.0", "gpu-operator"),
    _image("container-toolkit", "nvcr.io/nvidia/k8s/container-toolkit", "v1.18.0", "gpu-operator"),
    _image("device-plugin", "nvcr.io/nvidia/k8s-device-plugin", "v0.18.0", "gpu-operator"),
    _image("dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter", "4.4.1-4.6.0-ubuntu22.04", "gpu-operator"),
    _image("mig-manager", "nvcr.io/nvidia/cloud-native/k8s-mig-manager", "v0.13.0", "gpu-operator"),
    _image("node-feature-discovery", "registry.k8s.io/nfd/node-feature-discovery", "v0.18.2", "gpu-operator"),
    # Cilium (on-prem CNI)
    _chart("cilium", "https://helm.cilium.io/", "cilium", "1.19.4"),
    _image("cilium", "quay.io/cilium/cilium", "v1.19.4", "cilium"),
    _image("cilium-operator", "quay.io/cilium/operator-generic", "v1.19.4", "cilium"),
    # Kueue
    _chart("kueue", "oci://registry.k8s.io/kueue/charts/kueue", "kueue", "0.19.2"),
    _image("kueue", "registry.k8s.io/kueue/kueue", "v0.19.2", "kueue"),
    # AWS EFA device plugin (EKS): advertises each node's EFA interfaces as vpc.amazonaws.com/efa. Chart and image
    # as aws/eks-charts stable/aws-efa-k8s-device-plugin has them at 5239609 (2026-08-03): chart v0.5.30, image
    # v0.5.20, which the chart pulls from AWS's ECR in us-west-2 (602401143452...) and ECR Public mirrors.
    _chart("efa-device-plugin", "https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.30"),
    _image("efa-device-plugin", "public.ecr.aws/eks/aws-efa-k8s-device-plugin", "v0.5.20", "efa-device-plugin"),
    # cluster-autoscaler (EKS); its tag follows the cluster's Kubernetes minor version
    _chart("cluster-autoscaler", "https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.46.6"),
    # on-prem storage: Rancher's local-path provisioner and its helper pod
    _image("local-path-provisioner", "docker.io/rancher/local-path-provisioner", "v0.0.37", "storage"),
    _image("local-path-helper", "docker.io/library/busybox", "1.37.0", "storage"),
    # on-prem nodes (Ansible): the CRI sandbox image and kube-vip
    _image("pause", "registry.k8s.io/pause", "3.10.1", "onprem"),
    _image("kube-vip", "ghcr.io/kube-vip/kube-vip", "v1.0.0", "onprem"),
)}
AUTOSCALER_IMAGE = "registry.k8s.io/autoscaling/cluster-autoscaler"


def autoscaler_image(kubernetes_version: str) -> Artifact:
    """cluster-autoscaler's image must match the cluster's minor version."""
    return _image("cluster-autoscaler", AUTOSCALER_IMAGE, f"v{kubernetes_version}.0", "cluster-autoscaler")


def read_digest_lock(path: Path | None = None) -> dict[str, str]:
    """`<upstream reference> sha256:<hex>` per line (`#` comments); a missing file records nothing."""
    file = path or DIGEST_LOCK
    if not file.is_file():
        return {}
    digests: dict[str, str] = {}
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2 or not _DIGEST.match(parts[1]):
            raise ConfigError(f"{file.name}:{number}", f"{text!r} is not `<upstream reference> sha256:<64 hex>`")
        digests[parts[0]] = parts[1]
    return digests


class Images(BaseModel):
    """Where one cluster pulls its artifacts: `host` is its in-country registry (None: the upstreams)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str | None = None
    """The registry `host[:port]`. Default: none (every artifact from its upstream registry)."""
    digests: Mapping[str, str] = Field(default_factory=dict)
    """Recorded digests by upstream reference (stacks/digests.lock). Default: none."""

    def digest(self, artifact: Artifact) -> str | None:
        return self.digests.get(artifact.source)

    def repository(self, artifact: Artifact) -> str:
        """The image's repository (no tag), in-country when a registry is set."""
        return f"{self.host}/{artifact.path}" if self.host else artifact.upstream

    def ref(self, artifact: Artifact | str) -> str:
        """The image reference a pod spec names: repository:tag, plus @digest when one is recorded."""
        artifact = CATALOG[artifact] if isinstance(artifact, str) else artifact
        digest = self.digest(artifact)
        return f"{self.repository(artifact)}:{artifact.version}" + (f"@{digest}" if digest else "")

    def image_map(self, name: str, split_registry: bool = False) -> dict[str, str]:
        """`{repository, tag[, digest]}` (or with `registry` apart) for charts' `image:` maps."""
        artifact = CATALOG[name]
        repository = self.repository(artifact)
        value = {"repository": repository, "tag": artifact.version}
        if split_registry:
            registry, _, path = repository.partition("/")
            value = {"registry": registry, "repository": path, "tag": artifact.version}
        digest = self.digest(artifact)
        return {**value, "digest": digest} if digest else value

    def tagged(self, artifact: Artifact | str) -> dict[str, str]:
        """`{repository, tag}` for charts that join `repository:tag`: a recorded digest rides in the tag
        (`v0.19.2@sha256:...`), which makes the joined reference digest-pinned."""
        name, _, digest = self.ref(artifact).partition("@")
        repository, _, tag = name.rpartition(":")
        return {"repository": repository, "tag": f"{tag}@{digest}" if digest else tag}

    def chart(self, component: str) -> tuple[str, str, dict | None]:
        """(chart, version, repository_opts) for a component's Helm release: `oci://<registry>/charts/<chart>`
        in-country, else its upstream repository."""
        artifact = CATALOG[f"{component}-chart"]
        if self.host:
            return f"oci://{self.host}/{artifact.path}", artifact.version, None
        if artifact.upstream.startswith("oci://"):
            return artifact.upstream, artifact.version, None
        return artifact.chart or component, artifact.version, {"repo": artifact.upstream}

    def own_image(self, reference: str) -> str:
        """Sahab's own images (the training image): kept when already in this registry, else moved into it under
        the same path (also from another fleet registry: an AKS kubelet cannot pull from ECR, nor an on-prem
        node from ACR); a recorded digest is appended unless the reference has one."""
        name, _, digest = reference.partition("@")
        first, slash, rest = name.partition("/")
        has_host = slash and ("." in first or ":" in first or first == "localhost")
        host, path = (first, rest) if has_host else ("docker.io", name)
        here = self.host is not None and host.lower() == self.host.lower()
        target = name if not self.host or here else f"{self.host}/{path}"
        digest = digest or self.digests.get(name) or ""
        return f"{target}@{digest}" if digest else target


def used_artifacts(names: Iterable[str]) -> list[Artifact]:
    return [CATALOG[n] for n in names]


def components_of(component: str) -> list[Artifact]:
    """Every artifact a component installs (its chart and every image its values set)."""
    return [a for a in CATALOG.values() if a.component == component]
