"""Leak (one resolver): ECR replication whose destination region comes from a variable set to eu-central-1."""
# expect: aws-ecr-replicationconfiguration-region-allowed replication


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

target = "eu-central-" + "1"
aws.ecr.ReplicationConfiguration("replication", replication_configuration={"rules": [{"destinations": [
    {"region": target, "registry_id": "111122223333"}]}]})
