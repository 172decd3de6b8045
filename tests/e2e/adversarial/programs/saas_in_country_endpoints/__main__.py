"""Look-alike (hosts): the regional S3 endpoint of me-central-1, a MinIO on a private address and Oracle Cloud's
Dubai object storage: all in the country."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.CronJob("checkpoint-sync", metadata={"namespace": "research"}, spec={"schedule": "0 2 * * *",
    "job_template": {"spec": {"template": {"spec": {"restart_policy": "OnFailure", "containers": [{
        "name": "sync", "image": f"{ECR}/tools/aws-cli:2",
        "env": [{"name": "AWS_ENDPOINT_URL", "value": "https://s3.me-central-1.amazonaws.com"},
                {"name": "MINIO_URL", "value": "http://10.40.3.7:9000"},
                {"name": "OCI_URL",
                 "value": "https://ns1.compat.objectstorage.me-dubai-1.oraclecloud.com"}]}]}}}}})
