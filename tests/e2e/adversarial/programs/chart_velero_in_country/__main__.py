"""Look-alike (charts): Velero backs up to a bucket in me-central-1 through the regional endpoint."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("velero", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/velero",
    version="8.0.0", values={"image": {"repository": f"{ECR}/velero/velero", "tag": "v1.15.0"},
        "configuration": {"backupStorageLocation": [{"name": "default", "provider": "aws", "bucket": "cluster-dr",
            "config": {"region": "me-central-1", "s3Url": "https://s3.me-central-1.amazonaws.com"}}],
            "volumeSnapshotLocation": [{"name": "default", "provider": "aws", "config": {"region": "me-central-1"}}]}})
