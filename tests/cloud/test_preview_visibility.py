"""What a reviewer reads in a preview: security-relevant settings Sahab computes stay known, and only the leaf
that waits for a provider's answer (a key's ARN, a Disk Encryption Set's id) is unknown. Wrapping a whole object
in `apply` would hide `encrypted: "true"` behind one unknown key reference."""

from __future__ import annotations

import pytest

from sahab.engine import UNKNOWN, plan
from tests.conftest import ROOT

SC = "kubernetes:storage.k8s.io/v1:StorageClass"
RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def preview():
    return plan(ROOT, "prod", preview=True).resources


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

