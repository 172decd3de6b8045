"""Look-alike: an interface VPC endpoint whose `service_region` is me-central-1, the endpoint's own Region."""
# expect: pass

import pulumi_aws as aws

vpc = aws.ec2.Vpc("vpc", cidr_block="10.30.0.0/16")
aws.ec2.VpcEndpoint("partner-link", vpc_id=vpc.id, vpc_endpoint_type="Interface", service_region="me-central-1",
                    service_name="com.amazonaws.vpce.svc-0a1b2c3d4e5f67890")
