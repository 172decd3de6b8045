"""Look-alike (in transit): MSK TLS only, ElastiCache with transit encryption, MySQL forced to TLS, HTTP only
redirecting, HTTPS on a TLS 1.2 policy."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.msk.Cluster("stream", kafka_version="3.6.0", number_of_broker_nodes=3, broker_node_group_info={
    "instance_type": "kafka.m5.large", "client_subnets": ["subnet-0a", "subnet-0b", "subnet-0c"],
    "security_groups": ["sg-0a"]}, encryption_info={"encryption_at_rest_kms_key_arn": key.arn,
    "encryption_in_transit": {"client_broker": "TLS", "in_cluster": True}})
aws.elasticache.ReplicationGroup("sessions", description="sessions", node_type="cache.t3.micro", engine="redis",
    num_cache_clusters=2, at_rest_encryption_enabled=True, kms_key_id=key.arn, transit_encryption_enabled=True)
tls = aws.rds.ParameterGroup("tls", name="mysql-require-tls", family="mysql8.0",
                             parameters=[{"name": "require_secure_transport", "value": "1"}])
aws.rds.Instance("db", engine="mysql", engine_version="8.0.39", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", manage_master_user_password=True, storage_encrypted=True, kms_key_id=key.arn,
                 parameter_group_name=tls.name, skip_final_snapshot=True)
LB = "arn:aws:elasticloadbalancing:me-central-1:111122223333:loadbalancer/app/portal/1"
aws.lb.Listener("http", load_balancer_arn=LB, port=80, protocol="HTTP", default_actions=[{"type": "redirect",
                "redirect": {"protocol": "HTTPS", "port": "443", "status_code": "HTTP_301"}}])
aws.lb.Listener("https", load_balancer_arn=LB, port=443, protocol="HTTPS",
                ssl_policy="ELBSecurityPolicy-TLS13-1-2-2021-06",
                certificate_arn="arn:aws:acm:me-central-1:111122223333:certificate/abc", default_actions=[{
                    "type": "forward",
                    "target_group_arn": "arn:aws:elasticloadbalancing:me-central-1:111122223333:targetgroup/p/1"}])
