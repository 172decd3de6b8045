"""Leak (open world): a RabbitMQ broker for training jobs keeping its messages under an AWS-owned key (the default);
SAHAB-AWS-030 judges MQ brokers."""
# expect: aws-storage-datastore-encrypted-cmk jobs

import pulumi
import pulumi_aws as aws

aws.mq.Broker("jobs", broker_name="jobs", engine_type="RabbitMQ", engine_version="3.13",
              host_instance_type="mq.m5.large", publicly_accessible=False, subnet_ids=["subnet-1"],
              auto_minor_version_upgrade=True,
              users=[{"username": "trainer", "password": pulumi.Output.secret("a-generated-password")}])
