"""What a reviewer reads in a preview: security-relevant settings Sahab computes stay known, and only the leaf
that waits for a provider's answer (a key's ARN, a Disk Encryption Set's id) is unknown. Wrapping a whole object
in `apply` would hide `encrypted: "true"` behind one unknown key reference."""

from __future__ import annotations

import pytest

from sahab.engine import UNKNOWN
from tests.plans import stack_plan

SC = "kubernetes:storage.k8s.io/v1:StorageClass"
RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def preview():
    return stack_plan("prod", preview=True).resources  # planned once per run (tests/plans.py)


def unknown_leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from unknown_leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from unknown_leaves(v, (*path, i))
    elif isinstance(value, str) and UNKNOWN in value:
        yield path


def test_storage_classes_show_their_encryption_and_only_the_key_is_unknown(preview):
    classes = {r.inputs["provisioner"]: r.inputs["parameters"] for r in preview if r.type == SC}
    ebs, disk = classes["ebs.csi.aws.com"], classes["disk.csi.azure.com"]
    assert isinstance(ebs, dict) and isinstance(disk, dict)
    assert ebs["encrypted"] == "true" and ebs["type"] == "gp3"
    assert list(unknown_leaves(ebs)) == [("kmsKeyId",)]
    assert disk["diskEncryptionType"] == "EncryptionAtRestWithCustomerKey"
    assert list(unknown_leaves(disk)) == [("diskEncryptionSetID",)]
    assert classes["sahab.io/luks-local-path"] == {"nodePath": "/var/lib/sahab/volumes"}


def test_monitoring_values_are_known_but_for_what_waits(preview):
    for release in (r for r in preview if r.type == RELEASE and r.inputs.get("name") == "kube-prometheus-stack"):
        values = release.inputs["values"]
        assert isinstance(values, dict), "the whole values tree is unknown in a preview"
        spec = values["prometheus"]["prometheusSpec"]
        assert spec["retention"] == "30d" and spec["storageSpec"]["volumeClaimTemplate"]["spec"]["accessModes"]



def wholly_unknown(update, preview, path=()):
    """Paths whose update-phase value is an object (or a list holding one) while the preview shows one unknown in
    its place: a computed object wrapped whole in `apply`. A list of ids that each wait (subnet ids) may be unknown
    whole; it hides no setting."""
    if isinstance(update, dict) and update:
        if not isinstance(preview, dict):
            yield path
            return
        for key, value in update.items():
            if key in preview:
                yield from wholly_unknown(value, preview[key], (*path, key))
    elif isinstance(update, list) and update:
        if not isinstance(preview, list):
            if not all(isinstance(item, str) for item in update):
                yield path
            return
        for i, (value, shown) in enumerate(zip(update, preview, strict=False)):
            yield from wholly_unknown(value, shown, (*path, i))


def test_no_object_sahab_computes_waits_whole_in_a_preview(preview):
    """Every resource of prod: what is an object once values are known is an object in the preview too, so every
    setting in it that does not wait is readable."""
    from tests.helpers import planned_stack

    shown = {r.urn: r.inputs for r in preview}
    hidden = [f"{r.type} {r.name}: {'/'.join(map(str, path))}" for r in planned_stack("prod").resources
              if r.urn in shown for path in wholly_unknown(r.inputs, shown[r.urn])]
    assert hidden == []
