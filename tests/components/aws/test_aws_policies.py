"""IAM and key policy documents the AWS components write, without Pulumi."""

import json

from sahab.components.aws.bucket import bucket_policy
from sahab.components.aws.eks_cluster import eks_kubeconfig, irsa_trust_policy
from sahab.components.aws.kms import autoscaling_statements, key_policy, logs_statement, root_statement

ACCOUNT = "111122223333"


def test_logs_may_use_the_key_for_one_log_group_only():
    statement = logs_statement(ACCOUNT, "me-central-1", "/aws/eks/c/cluster")
    assert statement["Principal"] == {"Service": "logs.me-central-1.amazonaws.com"}
    assert statement["Condition"]["ArnEquals"] == {
        "kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:me-central-1:{ACCOUNT}:log-group:/aws/eks/c/cluster"}
    assert "kms:*" not in statement["Action"]


def test_auto_scaling_grants_are_only_for_aws_resources():
    use, grant = autoscaling_statements(ACCOUNT)
    assert use["Principal"]["AWS"].endswith(":role/aws-service-role/autoscaling.amazonaws.com/"
                                            "AWSServiceRoleForAutoScaling")
    assert grant["Action"] == "kms:CreateGrant"
    assert grant["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}


def test_key_policy_is_valid_json_with_the_account_as_administrator():
    doc = json.loads(key_policy([root_statement(ACCOUNT)]))
    assert doc["Statement"][0]["Principal"] == {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}


def test_irsa_role_trusts_one_service_account_of_one_cluster():
    issuer = "https://oidc.eks.me-central-1.amazonaws.com/id/ABC"
    (statement,) = json.loads(irsa_trust_policy("arn:oidc", issuer, "kube-system", "aws-node"))["Statement"]
    assert statement["Principal"] == {"Federated": "arn:oidc"}
    assert statement["Condition"]["StringEquals"] == {
        "oidc.eks.me-central-1.amazonaws.com/id/ABC:sub": "system:serviceaccount:kube-system:aws-node",
        "oidc.eks.me-central-1.amazonaws.com/id/ABC:aud": "sts.amazonaws.com"}


def test_bucket_policy_denies_plain_http_old_tls_and_foreign_keys():
    statements = {s["Sid"]: s for s in json.loads(bucket_policy("arn:aws:s3:::b", "arn:key"))["Statement"]}
    assert all(s["Effect"] == "Deny" and s["Principal"] == "*" for s in statements.values())
    assert statements["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert statements["DenyInsecureTransport"]["Resource"] == ["arn:aws:s3:::b", "arn:aws:s3:::b/*"]
    assert statements["DenyOutdatedTls"]["Condition"] == {"NumericLessThan": {"s3:TlsVersion": "1.2"}}
    assert statements["DenyOtherKeys"]["Condition"]["StringNotEqualsIfExists"] == {
        "s3:x-amz-server-side-encryption-aws-kms-key-id": "arn:key"}


def test_eks_kubeconfig_holds_no_credential_and_fetches_tokens_for_its_region():
    config = json.loads(eks_kubeconfig("c", "https://x.eks", "Q0E=", "me-central-1"))
    user = config["users"][0]["user"]
    assert set(user) == {"exec"}
    assert user["exec"]["args"] == ["eks", "get-token", "--cluster-name", "c", "--region", "me-central-1",
                                    "--output", "json"]
    assert config["clusters"][0]["cluster"] == {"server": "https://x.eks", "certificate-authority-data": "Q0E="}
