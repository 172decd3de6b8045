"""Leak (charts): Velero backs up to an S3-compatible endpoint whose place cannot be shown."""
# expect: cloud-all-resource-references-in-country velero

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("velero", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/velero",
    version="8.0.0", values={"image": {"repository": f"{ECR}/velero/velero", "tag": "v1.15.0"},
        "configuration": {"backupStorageLocation": [{"name": "default", "provider": "aws", "bucket": "cluster-dr",
            "config": {"region": "me-central-1", "s3Url": "https://objects.backup-vendor.net"}}]}})
