"""Kubernetes volumes on the node's own disk: `hostPath` and `local` PersistentVolumes and pod volumes that mount
host paths for data are judged against the node's encryption.

A volume on a host path is a directory on whatever disk the node has; a storage class's encryption does not reach
it (a class encrypts the volumes its provisioner creates). Sahab's on-prem nodes keep an encrypted place for data:
Ansible opens the LUKS2 data disk at the `nodePath` of the LUKS class (annotated `sahab.io/encryption: luks`,
parameters `nodePath: /var/lib/sahab/volumes`), and the class's provisioner refuses to create volumes anywhere
else. So a host-path volume is shown to be encrypted only when its path lies under the `nodePath` of an encrypting
class of this stack. Anything else, or a path that cannot be known, fails.

Host paths that hold no data of the workload are not judged: the node's own system trees (`/proc`, `/sys`, `/dev`,
`/run`, kubelet and runtime state, logs, kernel modules, `/etc`, `/usr`) that agents and drivers read, and any
host path that every container mounts read-only (nothing is written there)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
)
from ..places import _unwrap
from .kubernetes import STORAGE_CLASS, UNKNOWN_CLASS, storage_class_problem
from .kubernetes_images import POD_SPEC_PATHS, is_custom_resource

PV = "kubernetes:core/v1:PersistentVolume"
# The node's system trees (read by agents, drivers and the runtime), never a workload's data.
SYSTEM_PATHS = ("/proc", "/sys", "/dev", "/run", "/var/run", "/var/log", "/var/lib/kubelet", "/var/lib/containerd",
                "/var/lib/docker", "/var/lib/cni", "/opt/cni", "/etc", "/lib/modules", "/usr", "/boot",
                "/var/lib/dbus", "/var/lib/calico", "/var/lib/cilium")


def _under(path: str, base: str) -> bool:
    path, base = posixpath.normpath(path), posixpath.normpath(base)
    return path == base or path.startswith(base.rstrip("/") + "/")


def encrypted_node_paths(ctx: Context) -> list[str]:
    """The node paths of this stack's encrypting classes that keep volumes on the node (LUKS-backed local paths)."""
    paths = []
    for sc in ctx.of_type(STORAGE_CLASS):
        node_path = lookup(sc.props, "parameters", "nodePath")
        if isinstance(node_path, str) and storage_class_problem(sc) is None:
            paths.append(node_path)
    return paths


def _pod_spec(view: ResourceView) -> Any:
    path = POD_SPEC_PATHS.get(view.type)
    return lookup(view.props, *path) if path else MISSING


def _pod_specs(value: Any, where: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Pod-spec-shaped mappings (`volumes` beside `containers`) anywhere in a custom resource."""
    value = _unwrap(value)
    if depth > 10:
        return
    if isinstance(value, dict):
        if "volumes" in value and ("containers" in value or "initContainers" in value):
            yield where, value
        for key, child in value.items():
            if key not in ("metadata", "status"):
                yield from _pod_specs(child, f"{where}.{key}" if where else key, depth + 1)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _pod_specs(child, f"{where}[{i}]", depth + 1)


def pod_specs(view: ResourceView) -> Iterator[tuple[str, Any]]:
    spec = _pod_spec(view)
    if spec is not MISSING:
        yield ".".join(POD_SPEC_PATHS[view.type]), spec
    elif is_custom_resource(view.type) or view.type == "kubernetes:core/v1:PodTemplate":
        yield from _pod_specs(view.props, "")


def pod_volumes(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """(where, volume) of every volume of every pod spec the object declares."""
    for where, spec in pod_specs(view):
        if spec is UNKNOWN:
            yield f"`{where}`", UNKNOWN
            continue
        for i, volume in enumerate(items(spec, "volumes")):
            yield f"`{where}.volumes[{i}]`", volume


def _written(spec: Any, volume_name: Any) -> bool:
    """Whether any container of the pod mounts the volume writable."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in items(spec, key):
            for mount in items(container, "volumeMounts"):
                if lookup(mount, "name") == volume_name and lookup(mount, "readOnly") is not True:
                    return True
    return False


def _host_path_problem(path: Any, ctx: Context) -> str | None:
    if path is UNKNOWN:
        return UNKNOWN_CLASS
    if not isinstance(path, str) or not path.startswith("/"):
        return f"its path is {path!r}, not an absolute host path"
    bases = encrypted_node_paths(ctx)
    if any(_under(path, base) for base in bases):
        return None
    shown = ", ".join(bases) if bases else "none in this stack"
    return f"{path!r} is on the node's own disk, outside the encrypted node paths of this stack's classes ({shown})"


@rule(id="SAHAB-K8S-004", name="kubernetes-core-volume-host-path-encrypted",
      title="Volumes on a node's disk sit on its encrypted data volume",
      description="`hostPath` and `local` PersistentVolumes, and pod volumes that mount a host path for data "
                  "(writable, outside the node's system trees), lie under the `nodePath` of an encrypting class of "
                  "the stack (the LUKS data volume on-prem). A host path the pack cannot show to be encrypted "
                  "fails.",
      remediation="Claim a volume from an encrypting storage class instead of a host path, or put the path under "
                  "the LUKS class's nodePath (/var/lib/sahab/volumes on Sahab's on-prem nodes).",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(PV,))
def k8s_host_path_encrypted(ctx: Context):
    for pv in ctx.of_type(PV):
        for kind in ("hostPath", "local"):
            source = lookup(pv.props, "spec", kind)
            if source is MISSING:
                continue
            problem = _host_path_problem(lookup(source, "path"), ctx)
            if problem == UNKNOWN_CLASS:
                yield from ctx.still_unknown(f"PersistentVolume {pv.name!r}: `spec.{kind}.path`", pv.urn)
            elif problem:
                yield Finding(f"PersistentVolume {pv.name!r} (`spec.{kind}`): {problem}", pv.urn)
    for view in ctx.resources:
        if view.package != "kubernetes" or view.type == PV:
            continue
        for where, spec in pod_specs(view):
            if spec is UNKNOWN:
                continue  # the images rule fails closed on an unknown spec
            for i, volume in enumerate(items(spec, "volumes")):
                host = lookup(volume, "hostPath")
                if host is MISSING:
                    continue
                path = lookup(host, "path")
                if isinstance(path, str) and (any(_under(path, s) for s in SYSTEM_PATHS)
                                              or not _written(spec, lookup(volume, "name"))):
                    continue
                problem = _host_path_problem(path, ctx)
                if problem == UNKNOWN_CLASS:
                    yield from ctx.still_unknown(f"{view.name!r}: `{where}.volumes[{i}].hostPath.path`", view.urn)
                elif problem:
                    yield Finding(f"{view.name!r}: `{where}.volumes[{i}]` mounts a host path for data: {problem}",
                                  view.urn)
