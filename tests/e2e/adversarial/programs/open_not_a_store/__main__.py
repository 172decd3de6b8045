"""Look-alike (open world): types that hold no data of their own (a role, a security group, an ECS service without
volumes)."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

role = aws.iam.Role("ledger-reader", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
aws.ecs.Service("api", cluster="arn:aws:ecs:me-central-1:111122223333:cluster/main", desired_count=1,
                task_definition="arn:aws:ecs:me-central-1:111122223333:task-definition/api:3", launch_type="FARGATE",
                network_configuration={"subnets": ["subnet-0a"], "assign_public_ip": False})
