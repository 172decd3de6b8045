"""Leak (charts): Velero's backup storage location is a bucket in eu-west-1."""
# expect: cloud-all-resource-references-in-country velero

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("velero", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/velero",
    version="8.0.0", values={"image": {"repository": f"{ECR}/velero/velero", "tag": "v1.15.0"},
        "configuration": {"backupStorageLocation": [{"name": "default", "provider": "aws", "bucket": "cluster-dr",
                                                     "config": {"region": "eu-west-1"}}]}})
