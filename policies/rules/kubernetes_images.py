"""Where a workload's code comes from: container images from an allowed registry, pinned by digest.

Images are read from every workload kind (all containers, initContainers and ephemeralContainers of Pods and
of the pod templates of Deployments, DaemonSets, StatefulSets, ReplicaSets, Jobs and CronJobs) and from the
values of Helm releases the pack can see: `image: "<reference>"` strings, `image: {registry, repository, tag,
digest|sha}` maps (kube-prometheus-stack, most Bitnami-style charts) and `{repository, image, version}` maps
(NVIDIA's gpu-operator). A chart's own defaults are not visible to a policy pack: set its images in values.

References are parsed with the docker reference grammar (distribution/reference): a first path component is a
registry host only if it contains `.` or `:` or is `localhost` (or has upper-case letters, which no repository
path may), otherwise the image is on docker.io, and a single-component docker.io name lives under `library/`.
Registry hosts compare case-insensitively and exactly, port included: `ecr.example.com.evil.io` is not
`ecr.example.com`. A host that is not plain ASCII letters, digits, `-` and `.` (e.g. Unicode look-alikes) is not
a valid reference and fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from ..core import (
    DEFAULT_ALLOWED_REGIONS,
    MISSING,
    UNKNOWN,
    UNKNOWN_SENTINELS,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    iso27001,
    lookup,
    pdpl,
    rule,
)
from ..places import public_registries

DOCKER_HUB = "docker.io"
_DOCKER_HUB_ALIASES = ("index.docker.io", "registry-1.docker.io")
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_HOST = re.compile(rf"^(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9a-fA-F:]+\])(?::[0-9]{{1,5}})?$")
_PATH_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DIGEST = re.compile(r"^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$")
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}

# Pod specs inside each workload kind (the engine's camelCase inputs).
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "kubernetes:core/v1:Pod": ("spec",),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:ReplicaSet": ("spec", "template", "spec"),
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_TYPES = (HELM_RELEASE, "kubernetes:helm.sh/v4:Chart")
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
# Keys under which workload APIs outside the core kinds hold a single container or a list of container-shaped
# steps (Argo Workflows `container`/`script`/`sidecars`, Tekton `steps`/`sidecars`, ...).
CONTAINER_KEYS = ("container", "script")
STEP_LISTS = ("steps", "sidecars")
# Where objects that install Helm charts (Flux HelmRelease, Argo CD Application) keep the chart's values.
HELM_VALUES_KEYS = ("values", "valuesObject")
# Top-level fields that never run anything: ConfigMap and Secret payloads are opaque text, whatever they say.
NOT_RUN = frozenset({"metadata", "apiVersion", "kind", "data", "binaryData", "stringData"})
# A mapping is container-shaped when it names an image and has one of these (a container's own fields).
CONTAINER_FIELDS = frozenset({"name", "command", "args", "env", "envFrom", "ports", "resources", "volumeMounts",
                              "workingDir", "securityContext", "imagePullPolicy"})


class ReferenceError_(ValueError):
    """An image string that is not a valid docker reference."""


@dataclass(frozen=True)
class ImageReference:
    registry: str  # lower-case host[:port], docker.io for Docker Hub
    path: str  # repository path, `library/` added for single-name Docker Hub images
    tag: str | None
    digest: str | None


def parse_reference(text: str) -> ImageReference:
    """Parse `[registry[:port]/]path[:tag][@digest]` as container runtimes do; raise ReferenceError_ if invalid."""
    if not text or text != text.strip() or len(text) > 4096:
        raise ReferenceError_("empty, padded or oversized reference")
    name, at, digest = text.partition("@")
    if at and not _valid_digest(digest):
        raise ReferenceError_(f"digest {digest!r} is not algorithm:hex of the algorithm's length")
    first, slash, rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost" or first.lower() != first):
        registry, remainder = first, rest
    else:
        registry, remainder = DOCKER_HUB, name
    if not _HOST.match(registry):
        raise ReferenceError_(f"registry host {registry!r} is not a DNS name or IP with an optional port")
    registry = registry.lower()
    if registry in _DOCKER_HUB_ALIASES:
        registry = DOCKER_HUB
    last_slash = remainder.rfind("/")
    colon = remainder.rfind(":")
    tag = None
    if colon > last_slash:
        remainder, tag = remainder[:colon], remainder[colon + 1:]
        if not _TAG.match(tag):
            raise ReferenceError_(f"tag {tag!r} is not valid")
    components = remainder.split("/")
    if not all(_PATH_COMPONENT.match(c) for c in components):
        raise ReferenceError_(f"repository path {remainder!r} is not lower-case name components")
    if registry == DOCKER_HUB and len(components) == 1:
        remainder = f"library/{remainder}"
    return ImageReference(registry, remainder, tag, digest.lower() if digest else None)


def _valid_digest(digest: str) -> bool:
    if not _DIGEST.match(digest):
        return False
    algorithm, _, hex_part = digest.partition(":")
    expected = _DIGEST_LENGTHS.get(algorithm.lower())
    return expected is None or len(hex_part) == expected


# ---------------------------------------------------------------------------------------------------------
# Allowed registries


@dataclass(frozen=True)
class AllowedRegistry:
    """`host[:port][/path-prefix]`; a leading `*.` in the host stands for exactly one DNS label."""

    host: str
    prefix: str

    @classmethod
    def parse(cls, text: str) -> AllowedRegistry:
        host, _, prefix = text.strip().strip("/").partition("/")
        wildcard = host.startswith("*.")
        bare = host[2:] if wildcard else host
        if not _HOST.match(bare):
            raise ReferenceError_(f"allowed registry {text!r} is not host[:port][/prefix]")
        return cls(host.lower(), prefix.strip("/"))

    def admits(self, ref: ImageReference) -> bool:
        if self.host.startswith("*."):
            label, dot, rest = ref.registry.partition(".")
            if not dot or rest != self.host[2:] or not re.fullmatch(_LABEL, label):
                return False
        elif ref.registry != self.host:
            return False
        return not self.prefix or ref.path == self.prefix or ref.path.startswith(self.prefix + "/")


def allowed_registries(ctx: Context) -> tuple[list[AllowedRegistry], list[str]]:
    """The trusted policy config's `allowedRegistries` (`policies/config/<stack>.json`, `--policy-config`; a
    program's own config may only narrow it), and any entry that is not a registry (reported, never dropped).
    The stack's own `sahab:fleet.registries` never widens the list: a registry the stack names is allowed when its
    host proves an allowed region (an ECR host) or the trusted config names it."""
    configured = ctx.settings.get("allowedRegistries") if ctx.settings else None
    entries = list(configured) if isinstance(configured, (list, tuple)) else []
    allowed, bad = [], []
    for entry in entries:
        try:
            allowed.append(AllowedRegistry.parse(str(entry)))
        except ReferenceError_:
            bad.append(str(entry))
    return allowed, bad


ECR_HOST = re.compile(r"^[0-9]{12}\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")


def registry_place(registry: str) -> str | None:
    """The region a registry host proves (`<account>.dkr.ecr.<region>.amazonaws.com`), else None."""
    match = ECR_HOST.match(registry)
    return match.group(1) if match else None


def is_public_registry(registry: str) -> bool:
    """A public registry (Docker Hub, GCR and Artifact Registry, Quay, GHCR, ...): served from outside the UAE, never
    an in-country mirror whatever a configuration calls it."""
    host = registry.split(":", 1)[0] if not registry.startswith("[") else registry
    public = public_registries()
    labels = host.split(".")
    return any(".".join(labels[i:]) in public for i in range(len(labels)))


def fleet_registry_hosts(ctx: Context) -> list[str]:
    return [h.lower() for h in _registry_hosts(_fleet(ctx).get("registries"))]


def _fleet(ctx: Context) -> Mapping[str, Any]:
    fleet = ctx.stack_config.get("sahab:fleet")
    return fleet if isinstance(fleet, Mapping) else {}


def _registry_hosts(registries: Any) -> Iterator[str]:
    """`registries.<kind>.host` of the fleet schema; a bare string or list (older stacks) is taken as hosts."""
    if isinstance(registries, Mapping):
        for registry in registries.values():
            if isinstance(registry, Mapping):
                yield from _strings(registry.get("host"))
            else:
                yield from _strings(registry)
    else:
        yield from _strings(registries)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, Sequence) and not isinstance(value, bytes):
        for v in value:
            yield from _strings(v)


# ---------------------------------------------------------------------------------------------------------
# Finding the images of a resource


def images_of(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """(where, value) for every image the resource names; value is a string, UNKNOWN or MISSING."""
    if view.type in HELM_TYPES:
        values = lookup(view.props, "values")
        if values is UNKNOWN:
            yield "values", UNKNOWN
        elif values is not MISSING:
            yield from _helm_images(values, "values")
        return
    if view.type not in POD_SPEC_PATHS:
        yield from _custom_images(view)
        return
    spec = lookup(view.props, *POD_SPEC_PATHS[view.type])
    if spec is UNKNOWN:
        yield "pod spec", UNKNOWN
        return
    if spec is MISSING:
        yield "pod spec", MISSING
        return
    yield from _pod_spec_images(spec, "")


def _pod_spec_images(spec: Any, where: str) -> Iterator[tuple[str, Any]]:
    for list_name in CONTAINER_LISTS:
        containers = lookup(spec, list_name)
        if containers is UNKNOWN:
            yield f"{where}{list_name}", UNKNOWN
            continue
        if containers is MISSING or isinstance(containers, (str, Mapping)):
            continue
        for i in range(len(containers)):
            name = lookup(containers, i, "name")
            label = f"{where}{list_name}[{name if isinstance(name, str) else i}]"
            yield label, lookup(containers, i, "image")


def is_custom_resource(resource_type: str) -> bool:
    """A type of an API a CRD adds (`kubernetes:argoproj.io/v1alpha1:Workflow`), not a built-in one: built-in
    groups have no dot or end in `.k8s.io` (`x-k8s.io` groups are SIG projects' CRDs, e.g. Kueue, JobSet)."""
    parts = resource_type.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes" or "/" not in parts[1]:
        return False
    group = parts[1].rsplit("/", 1)[0]
    return "." in group and not (group.endswith(".k8s.io") and not group.endswith("x-k8s.io"))


def _custom_images(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """Any other Kubernetes object: every pod spec and container it holds, wherever it holds it (one walk for
    PodTemplates, ReplicationControllers and the workload CRDs: Argo, Kubeflow, Ray, JobSet, Tekton, Knative...).
    The spec of a custom resource that is unknown until the update runs may hold any image: it fails closed."""
    spec = lookup(view.props, "spec")
    if spec is UNKNOWN and is_custom_resource(view.type):
        yield "spec", UNKNOWN
        return
    seen: set[Any] = set()
    for key in view.props:
        if key in NOT_RUN:
            continue
        value = lookup(view.props, key)
        # Containers and pod specs, then any field that names an image the way Helm values do (SparkApplication
        # `spec.image`, a Tekton step with only `image` and `script`, `image: {repository, tag}`); each image once.
        for where, image in (*_walk_containers(value, key), *_helm_images(value, key)):
            marker = image if isinstance(image, str) else (where, image is UNKNOWN)
            if marker not in seen:
                seen.add(marker)
                yield where, image


def _walk_containers(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        if any(k in value for k in CONTAINER_LISTS):
            yield from _pod_spec_images(value, f"{where}.")
        image = lookup(value, "image")
        if CONTAINER_FIELDS.intersection(value) and (image is UNKNOWN or isinstance(image, str)):
            yield f"{where}.image", image
        for key in value:
            child = lookup(value, key)
            if key in CONTAINER_LISTS and (child is UNKNOWN or _is_list(child)):
                continue  # read above as a pod spec's list
            if key in HELM_VALUES_KEYS and isinstance(child, Mapping):
                yield from _helm_images(child, f"{where}.{key}")  # Flux HelmRelease, Argo CD Application
                continue
            if key in HELM_VALUES_KEYS and isinstance(child, str):
                yield from _helm_images(_values_text(child), f"{where}.{key}")  # Argo CD `helm.values`: YAML text
                continue
            if key == "valuesFrom" and (child is UNKNOWN or (_is_list(child) and len(child))):
                # Flux reads these values from ConfigMaps and Secrets when it installs: images the pack cannot see.
                yield f"{where}.{key}", UNKNOWN
                continue
            if child is UNKNOWN and (key in CONTAINER_KEYS or key in STEP_LISTS):
                yield f"{where}.{key}", UNKNOWN
            elif isinstance(child, Mapping) or _is_list(child):
                yield from _walk_containers(child, f"{where}.{key}")
    elif _is_list(value):
        for i in range(len(value)):
            yield from _walk_containers(lookup(value, i), f"{where}[{i}]")


def _helm_images(values: Any, where: str) -> Iterator[tuple[str, Any]]:
    if isinstance(values, str) and values in UNKNOWN_SENTINELS:
        yield where, UNKNOWN
        return
    if isinstance(values, Mapping):
        image = lookup(values, "image")
        repository = lookup(values, "repository")
        if isinstance(image, str) and isinstance(repository, str) and "/" not in image:
            # gpu-operator style: {repository: nvcr.io/nvidia, image: driver, version: 550.54.15}
            version = lookup(values, "version")
            if isinstance(version, str) and version.startswith("sha256:"):  # a digest in `version`
                yield f"{where}.image", _join(repository, image, MISSING, version)
            else:
                yield f"{where}.image", _join(repository, image, version, MISSING)
        elif image is not MISSING and not isinstance(image, Mapping):
            yield f"{where}.image", image if image is UNKNOWN or isinstance(image, str) else MISSING
        for key in values:
            child = lookup(values, key)
            path = f"{where}.{key}"
            if key == "image" and isinstance(child, Mapping) and not isinstance(repository, str):
                yield path, _image_map(child)
            elif key == "newName" and isinstance(child, str):  # Flux Kustomization `images: [{name, newName}]`
                tag = lookup(values, "newTag")
                yield path, f"{child}:{tag}" if isinstance(tag, str) else child
            elif key == "images" and _is_list(child) and all(isinstance(lookup(child, i), str)
                                                             for i in range(len(child))):
                # Kustomize image overrides (Argo CD, Flux): `name=new-name:tag` runs the part after `=`.
                for i in range(len(child)):
                    yield f"{path}[{i}]", lookup(child, i).rpartition("=")[2]
            elif child is UNKNOWN:
                if key in ("registry", "repository", "tag", "digest", "sha", "imageRegistry"):
                    yield path, UNKNOWN
            elif isinstance(child, Mapping) or _is_list(child):
                yield from _helm_images(child, path)
    elif _is_list(values):
        for i in range(len(values)):
            yield from _helm_images(lookup(values, i), f"{where}[{i}]")


def _values_text(text: str) -> Any:
    """Helm values given as YAML text; text that is no YAML mapping cannot configure a chart: nothing to read."""
    if text in UNKNOWN_SENTINELS:
        return text
    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return parsed if isinstance(parsed, Mapping) else {}


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _image_map(image: Mapping[str, Any]) -> Any:
    """`{registry, repository, tag, digest|sha}` as one reference; UNKNOWN if a part is."""
    registry = lookup(image, "registry")
    repository = lookup(image, "repository")
    digest = lookup(image, "digest")
    if digest is MISSING:
        digest = lookup(image, "sha")
    if repository is MISSING:
        return MISSING
    prefix = registry if isinstance(registry, str) and registry else MISSING
    if registry is UNKNOWN:
        prefix = UNKNOWN
    return _join(prefix, repository, lookup(image, "tag"), digest)


def _join(prefix: Any, name: Any, tag: Any, digest: Any) -> Any:
    parts = (prefix, name, tag, digest)
    if any(p is UNKNOWN for p in parts):
        return UNKNOWN
    if not isinstance(name, str):
        return MISSING
    text = f"{prefix.rstrip('/')}/{name}" if isinstance(prefix, str) else name
    if isinstance(tag, str) and tag:
        text += f":{tag}"
    if isinstance(digest, str) and digest:
        text += f"@{digest if ':' in digest else 'sha256:' + digest}"
    return text


# ---------------------------------------------------------------------------------------------------------
# Rules

SUPPLY_CHAIN = (iso27001("A.8.19 (installation of software on operational systems)"),
                iso27001("A.8.30 (outsourced development)"), pdpl("Art. 20 (security of processing)"))
REGISTRY_CONFIG = {
    "allowedRegistries": {"type": "array", "items": {"type": "string"},
                          "description": "Registries that encode no region (ACR, on-prem mirrors) images may come "
                                         "from: host[:port][/path-prefix], `*.` for one DNS label. Trusted policy "
                                         "config only; a program's own config may only narrow it."},
    "allowedRegions": {"type": "array", "items": {"type": "string"}, "default": list(DEFAULT_ALLOWED_REGIONS),
                       "description": "Regions whose registries (an ECR host names its region) images may come "
                                      "from without being listed."},
}


def _registry_problem(ref: ImageReference, image: str, allowed: list[AllowedRegistry], ctx: Context) -> str | None:
    if is_public_registry(ref.registry):
        return f"image {image!r} is from {ref.registry}, a public registry served from outside the UAE; no " \
               "configuration makes it an in-country mirror"
    region = registry_place(ref.registry)
    regions = ctx.settings.get("allowedRegions") or list(DEFAULT_ALLOWED_REGIONS)
    if region is not None:
        if region in regions:
            return None
        return f"image {image!r} is from {ref.registry}, in {region}, outside the allowed regions " \
               f"({', '.join(regions)})"
    if any(a.admits(ref) for a in allowed):
        return None
    named_by_stack = ref.registry in fleet_registry_hosts(ctx)
    why = " (the stack's own sahab:fleet.registries names it, which cannot widen the trusted list)" \
        if named_by_stack else ""
    names = ", ".join(a.host + (f"/{a.prefix}" if a.prefix else "") for a in allowed) or "none"
    return f"image {image!r} is from {ref.registry}/{ref.path}, whose host proves no allowed region and which the " \
           f"trusted policy config's allowedRegistries does not name{why}; allowed there: {names}"


@rule(id="SAHAB-K8S-012", name="kubernetes-all-workload-image-registry-allowed",
      title="Container images come from an allowed registry",
      description="Every container, init container and ephemeral container of Pods, Deployments, DaemonSets, "
                  "StatefulSets, ReplicaSets, Jobs and CronJobs, and every image set in a Helm release's values, "
                  "is pulled from a registry shown to be in the country: an ECR host in an allowed region, or a "
                  "registry the trusted policy config allows (`allowedRegistries`). The stack's own "
                  "`sahab:fleet.registries` cannot widen that list, and a public registry (docker.io, mirror.gcr.io, "
                  "*.pkg.dev, quay.io, ...) is refused even when configured as a mirror. An image without a "
                  "registry is on docker.io. Unknown or unparsable images fail.",
      remediation="Mirror the image into the fleet's in-country registry and reference it by that host; list a "
                  "registry that encodes no region (ACR, the on-prem mirror) in the stack's trusted policy config "
                  "(`policies/config/<stack>.json`: allowedRegistries).",
      severity=Severity.HIGH, frameworks=SUPPLY_CHAIN, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, packages=("kubernetes",), settings=REGISTRY_CONFIG)
def k8s_image_registry(view: ResourceView, ctx: Context):
    allowed, bad = allowed_registries(ctx)
    for entry in bad:
        yield Finding(f"allowedRegistries entry {entry!r} is not host[:port][/prefix]")
    for entry in allowed:
        if is_public_registry(entry.host.removeprefix("*.")):
            yield Finding(f"allowedRegistries entry {entry.host!r} is a public registry served from outside the "
                          "UAE; it cannot be an in-country mirror")
    allowed = [a for a in allowed if not is_public_registry(a.host.removeprefix("*."))]
    for where, image in images_of(view):
        if image is UNKNOWN:
            yield Finding(f"{where}: image is unknown until the update runs; its registry cannot be verified")
            continue
        if image is MISSING:
            yield Finding(f"{where}: no image is set; its registry cannot be verified")
            continue
        try:
            ref = parse_reference(image)
        except ReferenceError_ as exc:
            yield Finding(f"{where}: image {image!r} is not a valid reference ({exc})")
            continue
        problem = _registry_problem(ref, image, allowed, ctx)
        if problem:
            yield Finding(f"{where}: {problem}")


@rule(id="SAHAB-K8S-013", name="kubernetes-all-workload-image-digest-pinned",
      title="Container images are pinned by digest",
      description="Every image of the workload kinds and Helm values above names an `@sha256:` digest, so the "
                  "code that runs is the code that was reviewed; a tag can be moved. Advisory by default; "
                  "`policies/config/prod.json` makes it mandatory for prod.",
      remediation="Reference the image as `registry/path:tag@sha256:<digest>` (the tag may stay for readers).",
      severity=Severity.MEDIUM, frameworks=SUPPLY_CHAIN, enforcement=Enforcement.ADVISORY, residency=False,
      unknown=Unknown.FAILS, packages=("kubernetes",))
def k8s_image_digest(view: ResourceView, ctx: Context):
    for where, image in images_of(view):
        if image is UNKNOWN:
            yield Finding(f"{where}: image is unknown until the update runs; its digest cannot be verified")
        elif image is MISSING:
            yield Finding(f"{where}: no image is set")
        else:
            try:
                ref = parse_reference(image)
            except ReferenceError_ as exc:
                yield Finding(f"{where}: image {image!r} is not a valid reference ({exc})")
                continue
            if ref.digest is None:
                yield Finding(f"{where}: image {image!r} is not pinned by digest")
