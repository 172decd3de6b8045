"""Leak: a Redshift cluster without encryption."""
# expect: aws-storage-datastore-encrypted-cmk warehouse

import pulumi_aws as aws

aws.redshift.Cluster("warehouse", cluster_identifier="warehouse", node_type="ra3.xlplus", master_username="dba",
                     master_password="NotASecret123", skip_final_snapshot=True)
