"""EncryptedStorage: every class encrypts, one is the default, and the on-prem class only lands on LUKS."""

import json
import os
import stat
import subprocess

import pulumi
import pytest
from pydantic import ValidationError
from sahab.components.kubernetes.storage import (
    ONPREM_PROVISIONER,
    VOLUME_GROUP,
    EncryptedStorage,
    EncryptedStorageArgs,
    provisioner_config,
    setup_script,
)

from tests.components.kubernetes.harness import of_type, one, with_provider
from tests.components.kubernetes.manifests import validate

SC = "kubernetes:storage.k8s.io/v1:StorageClass"
KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/0b5e7f4c-1d2e-4a3b-9c8d-7e6f5a4b3c2d"
DES_ID = ("/subscriptions/3f2c1a7e-5b0d-4c9e-8a61-2d7e9b4f0c15/resourceGroups/sahab/providers/"
          "Microsoft.Compute/diskEncryptionSets/sahab-des")


def build(kind: str, key=None):
    return with_provider(lambda o: EncryptedStorage("st", EncryptedStorageArgs(cluster_kind=kind, encryption_key=key),
                                                    opts=o))


def test_eks_class_encrypts_with_the_clusters_kms_key_and_is_the_default():
    sc = one(build("eks", pulumi.Output.from_input(KEY_ARN)), SC).inputs
    assert sc["provisioner"] == "ebs.csi.aws.com"
    assert sc["parameters"]["encrypted"] == "true"
    assert sc["parameters"]["kmsKeyId"] == KEY_ARN
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"


def test_eks_class_without_a_known_key_still_encrypts():
    sc = one(build("eks"), SC).inputs
    assert sc["parameters"]["encrypted"] == "true"
    assert "kmsKeyId" not in sc["parameters"]


def test_aks_class_uses_the_disk_encryption_set():
    sc = one(build("aks", DES_ID), SC).inputs
    assert sc["provisioner"] == "disk.csi.azure.com"
    assert sc["parameters"]["diskEncryptionSetID"] == DES_ID
    assert sc["parameters"]["diskEncryptionType"] == "EncryptionAtRestWithCustomerKey"


def test_onprem_class_is_the_luks_provisioner_and_the_provisioner_runs_under_that_name():
    resources = build("onprem")
    sc = one(resources, SC).inputs
    assert sc["provisioner"] == ONPREM_PROVISIONER
    assert sc["metadata"]["annotations"]["sahab.io/encryption"] == "luks"
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    deployment = one(resources, "kubernetes:apps/v1:Deployment").inputs
    command = deployment["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[command.index("--provisioner-name") + 1] == ONPREM_PROVISIONER
    config = one(resources, "kubernetes:core/v1:ConfigMap").inputs["data"]
    assert json.loads(config["config.json"])["nodePathMap"][0]["paths"] == ["/var/lib/sahab/volumes"]
    # Privileged Pod Security only in the provisioner's own namespace.
    ns = one(resources, "kubernetes:core/v1:Namespace").inputs["metadata"]
    assert ns["name"] == "sahab-storage"
    assert ns["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_cloud_clusters_get_no_provisioner_of_their_own():
    for kind in ("eks", "aks"):
        resources = build(kind)
        assert not of_type(resources, "kubernetes:apps/v1:Deployment")
        assert not of_type(resources, "kubernetes:core/v1:Namespace")


def test_volume_path_must_be_absolute():
    with pytest.raises(ValidationError):
        EncryptedStorageArgs(cluster_kind="onprem", onprem_volume_path="var/lib/x")


def _run_setup(tmp_path, source: str, vol_dir: str | None = None):
    base = tmp_path / "volumes"
    base.mkdir()
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                         f"36 22 253:0 / {base} rw,relatime shared:7 - ext4 {source} rw\n")
    script = setup_script(str(base)).replace("/proc/self/mountinfo", str(mountinfo))
    target = vol_dir or str(base / "pvc-1234_team_data")
    done = subprocess.run(["sh", "-c", script], env={"VOL_DIR": target, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=False)
    return done, target


def test_setup_creates_a_volume_on_the_encrypted_mount(tmp_path):
    done, _ = _run_setup(tmp_path, "/dev/mapper/sahab-data")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "volumes" / "pvc-1234_team_data").is_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to the workload group needs root")
def test_a_volume_is_its_workload_group_s_alone(tmp_path):
    done, target = _run_setup(tmp_path, "/dev/mapper/sahab-data")
    assert done.returncode == 0, done.stderr
    info = os.stat(target)
    assert stat.S_IMODE(info.st_mode) == 0o770  # not world-writable, not world-readable
    assert (info.st_uid, info.st_gid) == (0, VOLUME_GROUP)


def test_setup_refuses_when_the_base_is_a_plain_disk(tmp_path):
    done, _ = _run_setup(tmp_path, "/dev/sda2")
    assert done.returncode == 1
    assert "not the LUKS data volume" in done.stderr
    assert not (tmp_path / "volumes" / "pvc-1234_team_data").exists()


def test_setup_refuses_a_directory_outside_the_volume_path(tmp_path):
    done, _ = _run_setup(tmp_path, "/dev/mapper/sahab-data", vol_dir=str(tmp_path / "elsewhere" / "pvc-1"))
    assert done.returncode == 1
    assert not (tmp_path / "elsewhere").exists()


def test_helper_pod_is_a_valid_pod_that_reaches_tainted_gpu_nodes():
    helper = json.loads(provisioner_config(EncryptedStorageArgs(cluster_kind="onprem"))["helperPod.yaml"])
    assert validate(helper) == []
    assert {"operator": "Exists"} in helper["spec"]["tolerations"]
