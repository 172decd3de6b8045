"""Leak: an Aurora cluster with storage encryption off."""
# expect: aws-storage-datastore-encrypted-cmk aurora

import pulumi_aws as aws

aws.rds.Cluster("aurora", engine="aurora-postgresql", master_username="dba", master_password="not-a-secret-12",
                skip_final_snapshot=True)
