"""Look-alike (egress): destinations named by plain names that AWS resolves in the resource's own region (a log
group, a topic of this account), and an account id."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

group = aws.cloudwatch.LogGroup("trail-logs", kms_key_id=key.arn, retention_in_days=365)
aws.ec2.FlowLog("vpc-flow", vpc_id="vpc-0123456789abcdef0", traffic_type="ALL", log_destination_type="cloud-watch-logs",
                log_destination=group.arn, iam_role_arn="arn:aws:iam::111122223333:role/flow-logs")
aws.ecr.ReplicationConfiguration("replication", replication_configuration={"rules": [{"destinations": [
    {"region": "me-central-1", "registry_id": "222233334444"}]}]})
