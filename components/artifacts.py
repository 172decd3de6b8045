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

Every reference is joined the way the chart that pulls it joins it (components.image_refs, one rule per way of
joining), and every pin of a chart-run image is read from the chart's fact sheet at the pinned chart version
(components/charts/, components.chart_facts): the chart's default, or an override that says why.

Digests: none is invented here. `stacks/digests.lock` (written by `sahab registry pin` from the registry's answer)
maps each artifact's in-country reference (`<registry>/<path>:<tag>`, the one the cluster pulls) to its digest; a
recorded digest is appended as `@sha256:...`, so the cluster pulls exactly what was seeded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from sahab.components.errors import ConfigError
from sahab.components.image_refs import RULES, Ref

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
    join: str = "reference"  # images: how the chart joins its reference (components.image_refs.RULES)
    override: str | None = None  # why the pin is not the chart's default (checked against the chart's fact sheet)

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


def _image(name: str, upstream: str, tag: str, component: str, join: str = "reference",
           override: str | None = None) -> Artifact:
    return Artifact(name, "image", upstream, tag, component, join=join, override=override)


def _chart(component: str, repository: str, chart: str, version: str) -> Artifact:
    return Artifact(f"{component}-chart", "chart", repository, version, component, chart)


# Each tag is the chart's own default at the pinned chart version, as its fact sheet (components/charts/) records,
# unless an override says why not; every one is also set in the chart's values, so the chart pulls exactly these.
CATALOG: dict[str, Artifact] = {a.name: a for a in (
    # kube-prometheus-stack and its subcharts (kube-state-metrics 8.4.0, prometheus-node-exporter 4.56.1, grafana
    # 12.11.1); the operator runs Prometheus, Alertmanager and the config reloader
    _chart("monitoring", "https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack", "88.5.3"),
    _image("prometheus-operator", "quay.io/prometheus-operator/prometheus-operator", "v0.93.1", "monitoring",
           "registry-sha"),
    _image("prometheus-config-reloader", "quay.io/prometheus-operator/prometheus-config-reloader", "v0.93.1",
           "monitoring", "registry-sha"),
    _image("webhook-certgen", "ghcr.io/jkroepke/kube-webhook-certgen", "1.8.7", "monitoring", "registry-sha"),
    _image("prometheus", "quay.io/prometheus/prometheus", "v3.14.0-distroless", "monitoring", "registry-sha"),
    _image("alertmanager", "quay.io/prometheus/alertmanager", "v0.34.0", "monitoring", "registry-sha"),
    _image("thanos", "quay.io/thanos/thanos", "v0.42.4", "monitoring", "registry-sha"),
    _image("kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics", "v2.20.0", "monitoring",
           "registry-sha-whole"),
    _image("node-exporter", "quay.io/prometheus/node-exporter", "v1.12.1-distroless", "monitoring",
           "registry-variant"),
    _image("grafana", "docker.io/grafana/grafana", "13.2.0", "monitoring", "registry-sha"),
    _image("grafana-sidecar", "quay.io/kiwigrid/k8s-sidecar", "2.10.1", "monitoring", "registry-sha"),
    _image("grafana-curl", "docker.io/curlimages/curl", "8.21.0", "monitoring", "registry-sha"),
    _image("busybox", "docker.io/library/busybox", "1.38.0", "monitoring", "registry-sha"),
    # NVIDIA GPU operator (its validator runs from the operator's own image) and node-feature-discovery 0.19.0
    _chart("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v26.7.0"),
    _image("gpu-operator", "nvcr.io/nvidia/gpu-operator", "v26.7.0", "gpu-operator", "nvidia"),
    _image("nvidia-driver", "nvcr.io/nvidia/driver", "595.91.07", "gpu-operator", "nvidia-driver"),
    _image("driver-manager", "nvcr.io/nvidia/cloud-native/k8s-driver-manager", "v0.12.0", "gpu-operator", "nvidia"),
    _image("container-toolkit", "nvcr.io/nvidia/k8s/container-toolkit", "v1.20.0", "gpu-operator", "nvidia"),
    _image("device-plugin", "nvcr.io/nvidia/k8s-device-plugin", "v0.20.0", "gpu-operator", "nvidia"),
    _image("dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter", "4.6.0-4.8.3-distroless", "gpu-operator", "nvidia"),
    _image("mig-manager", "nvcr.io/nvidia/cloud-native/k8s-mig-manager", "v0.15.0", "gpu-operator", "nvidia"),
    _image("node-feature-discovery", "registry.k8s.io/nfd/node-feature-discovery", "v0.19.0", "gpu-operator",
           "repository-tag"),
    # Cilium (on-prem CNI)
    _chart("cilium", "https://helm.cilium.io/", "cilium", "1.19.4"),
    _image("cilium", "quay.io/cilium/cilium", "v1.19.4", "cilium", "cilium"),
    _image("cilium-operator", "quay.io/cilium/operator-generic", "v1.19.4", "cilium", "cilium-operator"),
    # Kueue
    _chart("kueue", "oci://registry.k8s.io/kueue/charts/kueue", "kueue", "0.19.2"),
    _image("kueue", "registry.k8s.io/kueue/kueue", "v0.19.2", "kueue", "repository-tag"),
    # AWS EFA device plugin (EKS): advertises each node's EFA interfaces as vpc.amazonaws.com/efa. Chart and image
    # as aws/eks-charts stable/aws-efa-k8s-device-plugin has them at 5239609 (2026-08-03): chart v0.5.30, image
    # v0.5.20, which the chart pulls from AWS's ECR in us-west-2 (602401143452...) and ECR Public mirrors.
    _chart("efa-device-plugin", "https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.30"),
    _image("efa-device-plugin", "public.ecr.aws/eks/aws-efa-k8s-device-plugin", "v0.5.20", "efa-device-plugin",
           "repository-tag"),
    # cluster-autoscaler (EKS); its tag follows the cluster's Kubernetes minor version (autoscaler_image)
    _chart("cluster-autoscaler", "https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.46.6"),
    # on-prem storage: Rancher's local-path provisioner (Sahab's own manifests, not its chart) and its helper pod
    _image("local-path-provisioner", "docker.io/rancher/local-path-provisioner", "v0.0.37", "storage"),
    _image("local-path-helper", "docker.io/library/busybox", "1.38.0", "storage",
           override="upstream's manifest names docker.io/library/busybox without a tag (whatever `latest` is); "
                    "Sahab pins the busybox tag kube-prometheus-stack's Grafana pins, one image to seed"),
    # on-prem nodes (Ansible): the CRI sandbox image and kube-vip
    _image("pause", "registry.k8s.io/pause", "3.10.1", "onprem"),
    _image("kube-vip", "ghcr.io/kube-vip/kube-vip", "v1.0.0", "onprem"),
)}
AUTOSCALER_IMAGE = "registry.k8s.io/autoscaling/cluster-autoscaler"
AUTOSCALER_OVERRIDE = ("cluster-autoscaler supports only the Kubernetes minor version it is built for; the chart's "
                       "default follows the chart's release, not the cluster")


def autoscaler_image(kubernetes_version: str) -> Artifact:
    """cluster-autoscaler's image must match the cluster's minor version."""
    return _image("cluster-autoscaler", AUTOSCALER_IMAGE, f"v{kubernetes_version}.0", "cluster-autoscaler",
                  "repository-tag", AUTOSCALER_OVERRIDE)


def read_digest_lock(path: Path | None = None) -> dict[str, str]:
    """`<in-country reference> sha256:<hex>` per line (`#` comments); a missing file records nothing."""
    file = path or DIGEST_LOCK
    if not file.is_file():
        return {}
    digests: dict[str, str] = {}
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2 or not _DIGEST.match(parts[1]) or "@" in parts[0]:
            raise ConfigError(f"{file.name}:{number}", f"{text!r} is not `<in-country reference> sha256:<64 hex>`")
        digests[parts[0]] = parts[1]
    return digests


class Images(BaseModel):
    """Where one cluster pulls its artifacts: `host` is its in-country registry (None: the upstreams)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str | None = None
    """The registry `host[:port]`. Default: none (every artifact from its upstream registry)."""
    digests: Mapping[str, str] = Field(default_factory=dict)
    """Recorded digests by the reference pulled, `<registry>/<path>:<tag>` (stacks/digests.lock). Default: none."""

    def repository(self, artifact: Artifact) -> str:
        """The image's repository (no tag), in-country when a registry is set."""
        return f"{self.host}/{artifact.path}" if self.host else artifact.upstream

    def ref(self, artifact: Artifact | str, tag: str | None = None) -> Ref:
        """What a node pulls: repository, tag (default: the pin) and the digest recorded for that reference."""
        artifact = CATALOG[artifact] if isinstance(artifact, str) else artifact
        ref = Ref(self.repository(artifact), tag or artifact.version)
        return Ref(ref.repository, ref.tag, self.digests.get(ref.name))

    def reference(self, artifact: Artifact | str) -> str:
        """The image reference a pod spec names: repository:tag, plus @digest when one is recorded."""
        return str(self.ref(artifact))

    def values(self, artifact: Artifact | str, tag: str | None = None):
        """The values fragment that makes the artifact's chart pull it, joined by the chart's own rule."""
        artifact = CATALOG[artifact] if isinstance(artifact, str) else artifact
        return RULES[artifact.join].render(self.ref(artifact, tag))

    def chart(self, component: str) -> tuple[str, str, dict | None]:
        """(chart, version, repository_opts) for a component's Helm release: `oci://<registry>/charts/<chart>`
        in-country, else its upstream repository."""
        artifact = CATALOG[f"{component}-chart"]
        if self.host:
            return f"oci://{self.host}/{artifact.path}", artifact.version, None
        if artifact.upstream.startswith("oci://"):
            return artifact.upstream, artifact.version, None
        return artifact.chart or component, artifact.version, {"repo": artifact.upstream}

    def chart_digest(self, component: str) -> str | None:
        chart, version, _ = self.chart(component)
        return self.digests.get(f"{chart.removeprefix('oci://')}:{version}") if self.host else None

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
        digest = digest or self.digests.get(target) or ""
        return f"{target}@{digest}" if digest else target


def components_of(component: str) -> list[Artifact]:
    """Every artifact a component installs (its chart and every image its values set)."""
    return [a for a in CATALOG.values() if a.component == component]
