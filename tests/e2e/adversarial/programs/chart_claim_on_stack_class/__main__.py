"""Look-alike (charts): a chart's claim on the stack's encrypted class, another on the default (no class named)."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.storage.v1.StorageClass("luks", metadata={"name": "sahab-encrypted", "annotations": {
    "sahab.io/encryption": "luks", "storageclass.kubernetes.io/is-default-class": "true"}},
    provisioner="sahab.io/luks-local-path", parameters={"nodePath": "/var/lib/sahab/volumes"},
    volume_binding_mode="WaitForFirstConsumer")

k8s.helm.v3.Release("db", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/postgresql",
    version="16.0.0", values={"image": {"registry": ECR, "repository": "bitnami/postgresql", "tag": "16.4.0"},
                              "primary": {"persistence": {"storageClass": "sahab-encrypted"}},
                              "readReplicas": {"persistence": {"storageClass": ""}}})
