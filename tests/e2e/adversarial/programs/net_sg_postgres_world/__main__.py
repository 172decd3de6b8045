"""Leak (network exposure): a security group opening PostgreSQL to 0.0.0.0/0."""
# expect: cloud-all-network-data-port-not-public db-sg


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.ec2.SecurityGroup("db-sg", vpc_id="vpc-0123456789abcdef0", ingress=[{
    "protocol": "tcp", "from_port": 5432, "to_port": 5432, "cidr_blocks": ["0.0.0.0/0"]}])
