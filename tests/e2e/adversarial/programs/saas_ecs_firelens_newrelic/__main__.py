"""Leak (SaaS host): an ECS task ships its logs through FireLens to New Relic's EU endpoint."""
# expect: cloud-all-resource-references-in-country api

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.ecs.TaskDefinition("api", family="api", requires_compatibilities=["FARGATE"], network_mode="awsvpc", cpu="256",
    memory="512", container_definitions=json.dumps([{"name": "api",
        "image": "111122223333.dkr.ecr.me-central-1.amazonaws.com/api:1", "essential": True,
        "logConfiguration": {"logDriver": "awsfirelens", "options": {
            "Name": "http", "Host": "log-api.eu.newrelic.com", "URI": "/log/v1", "Port": "443", "tls": "on"}}}]))
