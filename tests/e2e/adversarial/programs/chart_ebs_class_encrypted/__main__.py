"""Look-alike (charts): the EBS CSI chart creates an encrypted class, and a claim uses it."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("ebs-csi", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/aws-ebs-csi-driver",
    version="2.35.1", values={"image": {"repository": f"{ECR}/ebs-csi-driver/aws-ebs-csi-driver"},
                              "storageClasses": [{"name": "gp3-encrypted", "parameters": {"type": "gp3",
                                                  "encrypted": "true"}}]})
k8s.core.v1.PersistentVolumeClaim("data", metadata={"namespace": "research"}, spec={
    "access_modes": ["ReadWriteOnce"], "storage_class_name": "gp3-encrypted",
    "resources": {"requests": {"storage": "10Gi"}}})
