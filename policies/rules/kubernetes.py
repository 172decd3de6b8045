"""Kubernetes: persistent volumes only on storage classes that encrypt, namespaces under Pod Security.

A storage class encrypts when its provisioner does and says so: the EBS CSI driver with `encrypted: "true"`,
the Azure Disk CSI driver with a `diskEncryptionSetID`, Ceph RBD with `encrypted: "true"`, or Sahab's own on-prem
class: its local-path provisioner (`sahab.io/luks-local-path`, components/kubernetes/storage.py) putting volumes on
the LUKS-encrypted data volume, annotated `sahab.io/encryption: luks`. The annotation says nothing on any other
provisioner (an NFS or hostPath class could carry it as easily)."""

from __future__ import annotations

from policies.core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    describe,
    iso27001,
    lookup,
    pdpl,
    rule,
    truthy,
)

STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
NAMESPACE = "kubernetes:core/v1:Namespace"
EBS_CSI = ("ebs.csi.aws.com", "kubernetes.io/aws-ebs")
AZURE_DISK_CSI = ("disk.csi.azure.com", "kubernetes.io/azure-disk")
ONPREM_ENCRYPTION_ANNOTATION = "sahab.io/encryption"
ONPREM_ENCRYPTION_VALUE = "luks"
# Sahab's on-prem provisioner and where the LUKS data volume is mounted (components.kubernetes.storage).
ONPREM_LUKS_PROVISIONER = "sahab.io/luks-local-path"
ONPREM_LUKS_PATH = "/var/lib/sahab/volumes"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"


def storage_class_problem(view: ResourceView) -> str | None:
    """Why this storage class does not encrypt; None when it does (or cannot be known yet)."""
    provisioner = lookup(view.props, "provisioner")
    params = lookup(view.props, "parameters")
    if provisioner is UNKNOWN or params is UNKNOWN:
        return None
    if provisioner is MISSING:
        return "no `provisioner`"
    if provisioner in EBS_CSI:
        encrypted = lookup(view.props, "parameters", "encrypted")
        if encrypted is UNKNOWN or truthy(encrypted):
            return None
        return f"EBS class with `parameters.encrypted` {describe(encrypted)}"
    if provisioner in AZURE_DISK_CSI:
        des = lookup(view.props, "parameters", "diskEncryptionSetID")
        if des is MISSING:
            return "Azure Disk class without `parameters.diskEncryptionSetID` (platform-managed keys only)"
        return None
    if provisioner.endswith("rbd.csi.ceph.com"):
        encrypted = lookup(view.props, "parameters", "encrypted")
        if encrypted is UNKNOWN or truthy(encrypted):
            return None
        return f"Ceph RBD class with `parameters.encrypted` {describe(encrypted)}"
    if provisioner != ONPREM_LUKS_PROVISIONER:
        return f"provisioner {provisioner!r} is not known to encrypt (the annotation {ONPREM_ENCRYPTION_ANNOTATION} " \
               f"counts only on Sahab's own {ONPREM_LUKS_PROVISIONER})"
    marker = lookup(view.props, "metadata", "annotations", ONPREM_ENCRYPTION_ANNOTATION)
    path = lookup(view.props, "parameters", "nodePath")
    if marker is UNKNOWN or path is UNKNOWN:
        return None
    if marker != ONPREM_ENCRYPTION_VALUE:
        return f"{ONPREM_LUKS_PROVISIONER} class without the annotation {ONPREM_ENCRYPTION_ANNOTATION}: " \
               f"{ONPREM_ENCRYPTION_VALUE}"
    if path is not MISSING and not (isinstance(path, str) and
                                    (path == ONPREM_LUKS_PATH or path.startswith(ONPREM_LUKS_PATH + "/"))):
        return f"{ONPREM_LUKS_PROVISIONER} class with `parameters.nodePath` {describe(path)}, outside the LUKS " \
               f"volume at {ONPREM_LUKS_PATH}"
    return None


@rule(id="SAHAB-K8S-001", name="kubernetes-storage-storageclass-encrypted",
      title="Storage classes encrypt volumes at rest",
      description="Every StorageClass provisions encrypted volumes: EBS CSI with `encrypted: \"true\"`, Azure "
                  "Disk CSI with a `diskEncryptionSetID`, Ceph RBD with `encrypted: \"true\"`, or Sahab's on-prem "
                  "class (provisioner `sahab.io/luks-local-path`, volumes on the LUKS data volume) annotated "
                  "`sahab.io/encryption: luks`.",
      remediation="Add the provisioner's encryption parameter (see the description) or use Sahab's encrypted "
                  "storage classes.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, types=(STORAGE_CLASS,))
def k8s_storage_class(view: ResourceView, ctx: Context):
    problem = storage_class_problem(view)
    if problem:
        yield Finding(problem)


@rule(id="SAHAB-K8S-002", name="kubernetes-core-persistentvolumeclaim-encrypted-class",
      title="Volume claims use an encrypting storage class of the stack",
      description="Every PersistentVolumeClaim names a StorageClass defined in the same stack that encrypts; a "
                  "claim without a class gets the cluster default, which this stack cannot vouch for.",
      remediation="Set `spec.storage_class_name` to one of the stack's encrypted storage classes.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, scope="stack")
def k8s_pvc_class(ctx: Context):
    classes = {}
    for sc in ctx.of_type(STORAGE_CLASS):
        name = lookup(sc.props, "metadata", "name")
        classes[name if isinstance(name, str) else sc.name] = sc
    for claim in ctx.of_type(PVC):
        wanted = lookup(claim.props, "spec", "storageClassName")
        if wanted is UNKNOWN:
            continue
        if wanted is MISSING:
            yield Finding(f"claim {claim.name!r} names no storage class", claim.urn)
        elif wanted not in classes:
            yield Finding(f"claim {claim.name!r} uses storage class {wanted!r}, which this stack does not define",
                          claim.urn)
        elif storage_class_problem(classes[wanted]):
            yield Finding(f"claim {claim.name!r} uses storage class {wanted!r}, which does not encrypt", claim.urn)


@rule(id="SAHAB-K8S-003", name="kubernetes-core-namespace-pod-security-enforced",
      title="Namespaces enforce Pod Security",
      description="Every namespace enforces the restricted or baseline Pod Security Standard.",
      remediation="Label the namespace `pod-security.kubernetes.io/enforce: restricted`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.2"),),
      enforcement=Enforcement.ADVISORY, residency=False, types=(NAMESPACE,))
def k8s_namespace_psa(view: ResourceView, ctx: Context):
    level = lookup(view.props, "metadata", "labels", "pod-security.kubernetes.io/enforce")
    if level is UNKNOWN or level in ("restricted", "baseline"):
        return
    yield Finding(f"label pod-security.kubernetes.io/enforce is {describe(level)}")
