"""Leak: an interface VPC endpoint that connects to an endpoint service in another Region (cross-Region
PrivateLink, `service_region`): traffic from the VPC travels to eu-west-1."""
# expect: cloud-all-resource-references-in-country partner-link

import pulumi_aws as aws

vpc = aws.ec2.Vpc("vpc", cidr_block="10.30.0.0/16")
aws.ec2.VpcEndpoint("partner-link", vpc_id=vpc.id, vpc_endpoint_type="Interface", service_region="eu-west-1",
                    service_name="com.amazonaws.vpce.svc-0a1b2c3d4e5f67890")
