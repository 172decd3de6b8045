"""Look-alike (network exposure): HTTPS open to the internet (a web port, not a data port); PostgreSQL only from the
VPC."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.ec2.SecurityGroup("web-sg", vpc_id="vpc-0123456789abcdef0", ingress=[
    {"protocol": "tcp", "from_port": 443, "to_port": 443, "cidr_blocks": ["0.0.0.0/0"]},
    {"protocol": "tcp", "from_port": 5432, "to_port": 5432, "cidr_blocks": ["10.20.0.0/16"]}])
