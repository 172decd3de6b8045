"""Look-alike: VPC endpoints and ARNs in me-central-1 and its zones."""
# expect: pass

import pulumi_aws as aws

vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
subnet = aws.ec2.Subnet("subnet", vpc_id=vpc.id, cidr_block="10.0.1.0/24", availability_zone="me-central-1a")
aws.ec2.VpcEndpoint("s3", vpc_id=vpc.id, service_name="com.amazonaws.me-central-1.s3")
