"""Written for pulumi_aws 6: `Eip(vpc=True)` is refused by pulumi_aws 7 (TypeError), accepted by 6."""

import sys

import pulumi
import pulumi_aws as aws

ip = aws.ec2.Eip("ip", vpc=True)
bucket = aws.s3.BucketV2("data")
pulumi.export("python", ".".join(map(str, sys.version_info[:2])))
pulumi.export("public_ip", ip.public_ip)
pulumi.export("bucket_arn", bucket.arn)
