"""Leak (in transit): a load balancer serving plain HTTP instead of redirecting."""
# expect: cloud-all-loadbalancer-listener-tls http


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

LB = "arn:aws:elasticloadbalancing:me-central-1:111122223333:loadbalancer/app/portal/1"
aws.lb.Listener("http", load_balancer_arn=LB, port=80, protocol="HTTP", default_actions=[{"type": "forward",
                "target_group_arn": "arn:aws:elasticloadbalancing:me-central-1:111122223333:targetgroup/portal/1"}])
