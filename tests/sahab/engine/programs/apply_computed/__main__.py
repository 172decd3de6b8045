"""Each pair differs only in what an `apply()` body computes: a preview sees neither value (both unknown), the
update run sees both. `*-bad` must be flagged, `*-good` must not (by the same rules)."""

import json

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_kubernetes as k8s

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
arn = key.arn


def computed(value):
    """`value`, known only once the key exists."""
    return arn.apply(lambda _: value)


# volumes
for name, encrypted in (("vol-bad", False), ("vol-good", True)):
    aws.ebs.Volume(name, availability_zone="me-central-1a", size=10, encrypted=computed(encrypted), kms_key_id=arn)

# databases
for name, encrypted in (("db-bad", False), ("db-good", True)):
    aws.rds.Instance(name, engine="postgres", instance_class="db.t3.micro", allocated_storage=20,
                     username="app", manage_master_user_password=True, skip_final_snapshot=True,
                     storage_encrypted=computed(encrypted), kms_key_id=arn)

# storage classes
for name, extra in (("sc-bad", {}), ("sc-good", {"encrypted": "true"})):
    k8s.storage.v1.StorageClass(name, provisioner="ebs.csi.aws.com",
                                parameters=arn.apply(lambda a, extra=extra: {"type": "gp3", "kmsKeyId": a, **extra}))

# bucket policies: the TLS deny covers one action, or every action
for name, action in (("bp-bad", "s3:PutObject"), ("bp-good", "s3:*")):
    bucket = aws.s3.Bucket(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": arn}}])
    tls_only = bucket.arn.apply(lambda b, action=action: json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Sid": "TLSOnly", "Effect": "Deny", "Principal": "*", "Action": action,
                       "Resource": [b, f"{b}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}))
    aws.s3.BucketPolicy(f"{name}-policy", bucket=bucket.id, policy=tls_only)

# IAM documents: a grant to a queue abroad, or at home
role = aws.iam.Role("role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
for name, region in (("iam-bad", "eu-west-1"), ("iam-good", "me-central-1")):
    grants = arn.apply(lambda a, region=region: json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": a},
        {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": f"arn:aws:sqs:{region}:111122223333:export"}]}))
    aws.iam.RolePolicy(name, role=role.id, policy=grants)

# public access
group = azure.resources.ResourceGroup("rg", location="uaenorth")
for name, public in (("blobbad", True), ("blobgood", False)):
    azure.storage.StorageAccount(name, resource_group_name=group.name, location="uaenorth",
                                 kind="StorageV2", sku={"name": "Standard_ZRS"},
                                 allow_blob_public_access=group.name.apply(lambda _, public=public: public))

# endpoints in environment variables
for name, region in (("env-bad", "eu-west-1"), ("env-good", "me-central-1")):
    k8s.apps.v1.Deployment(name, spec={
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{
            "name": "app", "image": "111122223333.dkr.ecr.me-central-1.amazonaws.com/app:1",
            "env": [{"name": "STORE", "value": arn.apply(
                lambda _, region=region: f"https://s3.{region}.amazonaws.com/exports")}]}]}}})

# endpoints in config files
for name, region in (("conf-bad", "eu-west-1"), ("conf-good", "me-central-1")):
    k8s.core.v1.ConfigMap(name, data={"app.yaml": arn.apply(
        lambda _, region=region: f"storage:\n  endpoint: https://s3.{region}.amazonaws.com\n  bucket: exports\n")})

pulumi.export("key", arn)
