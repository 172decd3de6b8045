"""Leak (fail closed): Route 53 Resolver query logs (every DNS name the VPC resolves) delivered to a bucket whose
ARN is built with Output.concat from a name this program does not create."""
# expect: cloud-all-resource-references-in-country dns-log

import pulumi
import pulumi_aws as aws

name = pulumi.Config().get("archive") or "central-dns-archive"
aws.route53.ResolverQueryLogConfig("dns-log", name="dns-log",
                                   destination_arn=pulumi.Output.concat("arn:aws:s3:::", name, "/resolver"))
