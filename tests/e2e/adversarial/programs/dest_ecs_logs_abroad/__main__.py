"""Leak: container logs shipped to CloudWatch in Ireland (inside a JSON document)."""
# expect: cloud-all-resource-references-in-country task

import json

import pulumi_aws as aws

aws.ecs.TaskDefinition("task", family="train", container_definitions=json.dumps([{
    "name": "train", "image": "public.ecr.aws/docker/library/python:3.12", "essential": True, "memory": 512,
    "logConfiguration": {"logDriver": "awslogs", "options": {"awslogs-group": "train",
                                                               "awslogs-region": "eu-west-1"}}}]))
