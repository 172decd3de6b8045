"""Leak (network exposure): an ingress rule for every port from a public /16."""
# expect: cloud-all-network-data-port-not-public anything


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.vpc.SecurityGroupIngressRule("anything", security_group_id="sg-0123456789abcdef0", ip_protocol="-1",
                                 cidr_ipv4="198.51.0.0/16")
