"""Leak: VPC peering with a VPC in Ireland."""
# expect: cloud-all-resource-references-in-country peer

import pulumi_aws as aws

vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
aws.ec2.VpcPeeringConnection("peer", vpc_id=vpc.id, peer_vpc_id="vpc-0abc", peer_region="eu-west-1")
