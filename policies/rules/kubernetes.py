"""Kubernetes: persistent volumes only on storage classes that encrypt, namespaces under Pod Security.

A storage class encrypts when its provisioner does and says so: the EBS CSI driver with `encrypted: "true"`,
the Azure Disk CSI driver with a `diskEncryptionSetID`, Ceph RBD with `encrypted: "true"`, or Sahab's own on-prem
class: its local-path provisioner (`sahab.io/luks-local-path`, components/kubernetes/storage.py) putting volumes on
the LUKS-encrypted data volume, annotated `sahab.io/encryption: luks`. The annotation says nothing on any other
provisioner (an NFS or hostPath class could carry it as easily)."""

from __future__ import annotations

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
    describe,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
    truthy,
)

STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
NAMESPACE = "kubernetes:core/v1:Namespace"
HELM_RELEASES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
EBS_CSI = ("ebs.csi.aws.com", "kubernetes.io/aws-ebs")
AZURE_DISK_CSI = ("disk.csi.azure.com", "kubernetes.io/azure-disk")
ONPREM_ENCRYPTION_ANNOTATION = "sahab.io/encryption"
ONPREM_ENCRYPTION_VALUE = "luks"
# Sahab's on-prem provisioner and where the LUKS data volume is mounted (components.kubernetes.storage).
ONPREM_LUKS_PROVISIONER = "sahab.io/luks-local-path"
ONPREM_LUKS_PATH = "/var/lib/sahab/volumes"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
# What storage_class_problem answers when a value it needs is unknown.
UNKNOWN_CLASS = "a value of the class (provisioner, parameters or annotation) is unknown"


def storage_class_problem(view: ResourceView) -> str | None:
    """Why this storage class does not encrypt; None when it does, UNKNOWN_CLASS when a value it depends on is
    unknown (the caller handles that as its rule declares)."""
    provisioner = lookup(view.props, "provisioner")
    params = lookup(view.props, "parameters")
    if provisioner is UNKNOWN or params is UNKNOWN:
        return UNKNOWN_CLASS
    if provisioner is MISSING:
        return "no `provisioner`"
    if provisioner in EBS_CSI:
        encrypted = lookup(view.props, "parameters", "encrypted")
        if encrypted is UNKNOWN:
            return UNKNOWN_CLASS
        if truthy(encrypted):
            return None
        return f"EBS class with `parameters.encrypted` {describe(encrypted)}"
    if provisioner in AZURE_DISK_CSI:
        des = lookup(view.props, "parameters", "diskEncryptionSetID")
        if des is MISSING:
            return "Azure Disk class without `parameters.diskEncryptionSetID` (platform-managed keys only)"
        return None
    if provisioner.endswith("rbd.csi.ceph.com"):
        encrypted = lookup(view.props, "parameters", "encrypted")
        if encrypted is UNKNOWN:
            return UNKNOWN_CLASS
        if truthy(encrypted):
            return None
        return f"Ceph RBD class with `parameters.encrypted` {describe(encrypted)}"
    if provisioner != ONPREM_LUKS_PROVISIONER:
        return f"provisioner {provisioner!r} is not known to encrypt (the annotation {ONPREM_ENCRYPTION_ANNOTATION} " \
               f"counts only on Sahab's own {ONPREM_LUKS_PROVISIONER})"
    marker = lookup(view.props, "metadata", "annotations", ONPREM_ENCRYPTION_ANNOTATION)
    path = lookup(view.props, "parameters", "nodePath")
    if marker is UNKNOWN or path is UNKNOWN:
        return UNKNOWN_CLASS
    if marker != ONPREM_ENCRYPTION_VALUE:
        return f"{ONPREM_LUKS_PROVISIONER} class without the annotation {ONPREM_ENCRYPTION_ANNOTATION}: " \
               f"{ONPREM_ENCRYPTION_VALUE}"
    if path is not MISSING and not (isinstance(path, str) and
                                    (path == ONPREM_LUKS_PATH or path.startswith(ONPREM_LUKS_PATH + "/"))):
        return f"{ONPREM_LUKS_PROVISIONER} class with `parameters.nodePath` {describe(path)}, outside the LUKS " \
               f"volume at {ONPREM_LUKS_PATH}"
    return None


def chart_storage_classes(view: ResourceView) -> list[ResourceView]:
    """The storage classes a Helm release's values create (policies/data/chart_values.json), as views shaped like a
    StorageClass object of the same cluster (provider) and release."""
    from ..egress import HELM_TYPES, chart_entries
    from ..residency import model_steps, walk_model_path

    if view.type not in HELM_TYPES:
        return []
    values = lookup(view.props, "values")
    if not isinstance(values, dict) and not hasattr(values, "keys"):
        return []
    out = []
    for entry in chart_entries("storage_classes", lookup(view.props, "chart")):
        for where, spec in walk_model_path(values, model_steps(entry["path"]), "values"):
            if spec is MISSING or spec is None:
                continue
            name = lookup(spec, "name")
            props = {"metadata": {"name": name, "annotations": lookup(spec, "annotations") or {}},
                     "provisioner": lookup(spec, "provisioner") if lookup(spec, "provisioner") is not MISSING
                     else entry["provisioner"], "parameters": lookup(spec, "parameters") or {}}
            if spec is UNKNOWN or name is UNKNOWN:
                props = {"metadata": {"name": UNKNOWN}, "provisioner": UNKNOWN}
            out.append(ResourceView(STORAGE_CLASS, f"{view.name} {where}", view.urn, props, view.provider,
                                    view.parent))
    return out


@rule(id="SAHAB-K8S-001", name="kubernetes-storage-storageclass-encrypted",
      title="Storage classes encrypt volumes at rest",
      description="Every StorageClass provisions encrypted volumes: EBS CSI with `encrypted: \"true\"`, Azure "
                  "Disk CSI with a `diskEncryptionSetID`, Ceph RBD with `encrypted: \"true\"`, or Sahab's on-prem "
                  "class (provisioner `sahab.io/luks-local-path`, volumes on the LUKS data volume) annotated "
                  "`sahab.io/encryption: luks`; so does every class a Helm release's values create "
                  "(policies/data/chart_values.json: the aws-ebs-csi-driver chart's `storageClasses`).",
      remediation="Add the provisioner's encryption parameter (see the description) or use Sahab's encrypted "
                  "storage classes.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE,
      types=(STORAGE_CLASS, *HELM_RELEASES))
def k8s_storage_class(view: ResourceView, ctx: Context):
    for sc in [view] if view.type == STORAGE_CLASS else chart_storage_classes(view):
        where = "" if sc is view else f"{sc.name.split(' ', 1)[1]}: "
        problem = storage_class_problem(sc)
        if problem == UNKNOWN_CLASS:
            yield from ctx.still_unknown(f"{where}`provisioner`, `parameters` or the encryption annotation")
        elif problem:
            yield Finding(f"{where}{problem}")


def _classes(ctx: Context) -> dict[tuple[str | None, str], ResourceView]:
    """Storage classes of the stack and those its charts create, by (cluster provider, name)."""
    classes: dict[tuple[str | None, str], ResourceView] = {}
    for sc in [*ctx.of_type(STORAGE_CLASS), *(c for r in ctx.of_type(*HELM_RELEASES) for c in
                                             chart_storage_classes(r))]:
        name = lookup(sc.props, "metadata", "name")
        classes[(_cluster(sc), name if isinstance(name, str) else sc.name)] = sc
    return classes


def _cluster(view: ResourceView) -> str | None:
    return view.provider.urn if view.provider is not None else None


def claims(ctx: Context) -> Iterator[tuple[ResourceView, str, Any]]:
    """(resource, where, storage class name or MISSING/UNKNOWN) of every claim the stack makes: PersistentVolumeClaims,
    StatefulSet volume claim templates, pods' ephemeral volumes, and claim templates in Helm values
    (`volumeClaimTemplate.spec.storageClassName`, `persistence.storageClass`)."""
    for claim in ctx.of_type(PVC):
        yield claim, "`spec.storageClassName`", lookup(claim.props, "spec", "storageClassName")
    for sts in ctx.of_type("kubernetes:apps/v1:StatefulSet"):
        for i, template in enumerate(items(sts.props, "spec", "volumeClaimTemplates")):
            yield sts, f"`spec.volumeClaimTemplates[{i}].spec.storageClassName`", \
                lookup(template, "spec", "storageClassName")
    for release in ctx.of_type(*HELM_RELEASES):
        for where, value in _values_claims(lookup(release.props, "values"), "values"):
            yield release, f"`{where}`", value


def _values_claims(value: Any, where: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    from ..places import _unwrap

    value = _unwrap(value)
    if depth > 12 or not isinstance(value, dict):
        if isinstance(value, list) and depth <= 12:
            for i, child in enumerate(value):
                yield from _values_claims(child, f"{where}[{i}]", depth + 1)
        return
    for key, child in value.items():
        path = f"{where}.{key}"
        if key == "storageClassName" or (key == "storageClass" and not isinstance(_unwrap(child), dict)):
            child = lookup(value, key)
            if isinstance(child, str) and child.strip() in ("", "-"):
                continue  # "": the cluster default; "-": no dynamic provisioning (charts' convention)
            yield path, child
        else:
            yield from _values_claims(child, path, depth + 1)


@rule(id="SAHAB-K8S-002", name="kubernetes-core-persistentvolumeclaim-encrypted-class",
      title="Volume claims use an encrypting storage class the stack defines",
      description="Every claim on storage (PersistentVolumeClaims, StatefulSet claim templates, claim templates "
                  "and storage classes named in Helm values) names a StorageClass that the stack defines, or that a "
                  "chart of the stack can be shown to create (policies/data/chart_values.json), on the same "
                  "cluster, and that class encrypts. A PersistentVolumeClaim without a class gets the cluster's "
                  "default, which must then be a class of the stack marked default that encrypts.",
      remediation="Set `storage_class_name` to one of the stack's encrypted storage classes (sahab-encrypted), or "
                  "define the class in the program.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(PVC, "kubernetes:apps/v1:StatefulSet"))
def k8s_pvc_class(ctx: Context):
    classes = _classes(ctx)
    for claim, where, wanted in claims(ctx):
        cluster = _cluster(claim)
        found = classes.get((cluster, wanted)) or next((c for (p, n), c in classes.items()
                                                        if n == wanted and (p is None or cluster is None)), None)
        if wanted is UNKNOWN:
            yield from ctx.still_unknown(f"{claim.name!r}: {where}", claim.urn)
            continue
        if wanted is MISSING:
            defaults = [c for (p, _), c in classes.items() if p in (cluster, None) and lookup(
                c.props, "metadata", "annotations", DEFAULT_CLASS_ANNOTATION) == "true"]
            if not defaults:
                yield Finding(f"{claim.name!r}: {where} names no class, and the stack marks no class of its cluster "
                              "as the default: the cluster's own default cannot be vouched for", claim.urn)
            elif storage_class_problem(defaults[0]) not in (None, UNKNOWN_CLASS):
                yield Finding(f"{claim.name!r}: {where} names no class, and the default class does not encrypt",
                              claim.urn)
            continue
        if found is None:
            yield Finding(f"{claim.name!r}: {where} is {wanted!r}, a class this stack does not define and no chart "
                          "of it can be shown to create", claim.urn)
        elif storage_class_problem(found) == UNKNOWN_CLASS:
            yield from ctx.still_unknown(f"{claim.name!r}: the class {wanted!r}", claim.urn)
        elif storage_class_problem(found):
            yield Finding(f"{claim.name!r}: {where} is {wanted!r}, which does not encrypt", claim.urn)


@rule(id="SAHAB-K8S-003", name="kubernetes-core-namespace-pod-security-enforced",
      title="Namespaces enforce Pod Security",
      description="Every namespace enforces the restricted or baseline Pod Security Standard.",
      remediation="Label the namespace `pod-security.kubernetes.io/enforce: restricted`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.2"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=(NAMESPACE,))
def k8s_namespace_psa(view: ResourceView, ctx: Context):
    level = lookup(view.props, "metadata", "labels", "pod-security.kubernetes.io/enforce")
    if level is UNKNOWN or level in ("restricted", "baseline"):
        return
    yield Finding(f"label pod-security.kubernetes.io/enforce is {describe(level)}")
