"""Leak: an EKS node group whose disks are the AMI's defaults."""
# expect: aws-storage-datastore-encrypted-cmk workers

import pulumi_aws as aws

aws.eks.NodeGroup("workers", cluster_name="c", node_role_arn="arn:aws:iam::111122223333:role/nodes",
                  subnet_ids=["subnet-1"], scaling_config={"desired_size": 1, "max_size": 1, "min_size": 1})
