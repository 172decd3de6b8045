"""Provider outputs have the types the provider SDK declares, with values that look like the cloud's own: what a
program reads back is what the real engine would hand it (one program, one preview and one update run, about
5 s on an idle machine)."""

from __future__ import annotations

import textwrap

import pytest

from sahab.engine import UNKNOWN, plan

PROGRAM = """
import json

import pulumi
import pulumi_aws as aws

doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                               "Principal": {"Service": "lambda.amazonaws.com"}}]}
role = aws.iam.Role("role", assume_role_policy=doc)  # a dict where the output is declared a string
pulumi.export("trusts", role.assume_role_policy.apply(lambda text: json.loads(text)["Statement"][0]["Principal"]))
db = aws.rds.Instance("db", engine="postgres", instance_class="db.t3.micro", allocated_storage=20, username="app",
                      manage_master_user_password=True, skip_final_snapshot=True, storage_encrypted=True)
bucket = aws.s3.Bucket("data")
queue = aws.sqs.Queue("jobs", region="eu-west-1")
pulumi.export("db", {"address": db.address, "port": db.port, "endpoint": db.endpoint, "arn": db.arn})
pulumi.export("bucket_arn", bucket.arn)
pulumi.export("role_arn", role.arn)
pulumi.export("queue_arn", queue.arn)
pulumi.export("queue_url", queue.url)
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    folder = tmp_path_factory.mktemp("typed") / "typed"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: typed\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config:\n  aws:region: me-central-1\n")
    (folder / "__main__.py").write_text(textwrap.dedent(PROGRAM))
    return folder


def test_an_input_given_as_a_dict_reads_back_as_the_json_text_its_output_is_declared(program):
    for run in (plan(program, "dev", preview=True), plan(program, "dev")):
        assert run.outputs["trusts"] == {"Service": "lambda.amazonaws.com"}


def test_update_outputs_are_of_their_declared_types_in_the_resources_own_region_and_account(program):
    out = plan(program, "dev").outputs
    db = out["db"]
    assert isinstance(db["port"], int) and ".me-central-1.rds.amazonaws.com" in db["address"]
    assert db["arn"].startswith("arn:aws:rds:me-central-1:111122223333:")
    assert out["bucket_arn"].startswith("arn:aws:s3:::")  # S3 bucket ARNs carry no region or account
    assert out["role_arn"].startswith("arn:aws:iam::111122223333:role/")  # IAM is global
    assert out["queue_arn"].startswith("arn:aws:sqs:eu-west-1:111122223333:")  # its own region, not the stack's
    assert ".eu-west-1." in out["queue_url"]


def test_a_preview_leaves_what_providers_compute_unknown(program):
    out = plan(program, "dev", preview=True).outputs
    assert out["db"]["port"] == UNKNOWN and out["queue_arn"] == UNKNOWN


def test_an_eks_cluster_comes_up_with_the_security_group_eks_creates_for_it():
    from sahab.engine.outputs import full_state
    from sahab.engine.values import Owner

    token = "aws:eks/cluster:Cluster"
    owner = Owner("aws", "eks", "Cluster", "gpu", "me-central-1", None, f"{token}/gpu")
    _, state = full_state(token, "gpu", {"vpcConfig": {"subnetIds": ["subnet-1"]}}, owner)
    assert state["vpcConfig"]["subnetIds"] == ["subnet-1"]  # what the program gave stays
    assert state["vpcConfig"]["clusterSecurityGroupId"].startswith("sg-0")
