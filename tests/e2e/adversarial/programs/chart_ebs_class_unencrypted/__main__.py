"""Leak (charts): the EBS CSI driver chart creates a storage class without encryption."""
# expect: kubernetes-storage-storageclass-encrypted ebs-csi

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("ebs-csi", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/aws-ebs-csi-driver",
    version="2.35.1", values={"image": {"repository": f"{ECR}/ebs-csi-driver/aws-ebs-csi-driver"},
                              "storageClasses": [{"name": "gp3", "parameters": {"type": "gp3"}}]})
