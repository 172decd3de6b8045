"""The existing resources a stack declares (`sahab:existing`): are they there, in the place the stack says?

Offline, a lookup of something the program does not create answers with the place `sahab:existing` declares
for it (sahab/engine/inventory.py), and residency is judged on that place. This area asks the live cloud
whether each declared resource exists where it is declared, one line per resource:
- AWS through its own APIs in the declared region (a regional API finds only what is in its region; an S3
  bucket's region is what GetBucketLocation answers; an ARN's region must be the declared one);
- Azure through Resource Manager's resource list (name, resource group and location of any resource type), with
  the credential azure-identity finds (`az login`, a managed identity, environment variables).
A type this area cannot ask about is a skip that names it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext
from sahab.engine import inventory

AREA = "inventory"
ARM = "https://management.azure.com"
ARM_API = "2021-04-01"  # Resources - List and Resource Groups - Get (Microsoft.Resources)


def checks(ctx: DoctorContext) -> Iterator[Check]:
    entries = inventory.load(ctx.config, f"Pulumi.{ctx.stack}.yaml")
    for entry in entries:
        name = f"{entry.type} {entry.id}"
        try:
            if entry.package in ("aws", "aws-native"):
                yield _aws(ctx, entry, name)
            elif entry.package in ("azure-native", "azure"):
                yield _azure(ctx, entry, name)
            else:
                yield Check(AREA, name, SKIP, f"no API of package {entry.package!r} is asked here",
                            "verify it by hand: it is judged as declared")
        except _Unanswered as exc:
            yield Check(AREA, name, FAIL, str(exc), exc.remedy)


class _Unanswered(Exception):
    def __init__(self, message: str, remedy: str):
        super().__init__(message)
        self.remedy = remedy


# ---------------------------------------------------------------------------------------------------------
# AWS


def _aws_client(ctx: DoctorContext, service: str, region: str):
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=ctx.timeout, read_timeout=ctx.timeout, retries={"max_attempts": 2})
    return ctx.cached(f"aws/{service}/{region}", lambda: boto3.client(
        service, region_name=region, endpoint_url=ctx.endpoints.get("aws"), config=config))


def _arn_region(identity: str) -> str | None:
    parts = identity.split(":")
    return parts[3] if identity.startswith("arn:") and len(parts) > 5 else None


def _last(identity: str) -> str:
    return identity.rsplit("/", 1)[-1].rsplit(":", 1)[-1] if identity.startswith("arn:") else identity


# (service, kinds) -> how to ask the declared region for the resource: a call that raises when it is not there.
_AWS_FINDERS: dict[tuple[str, tuple[str, ...]], Callable[[Any, str], Any]] = {
    ("kms", ("Key",)): lambda c, i: c.describe_key(KeyId=i),
    ("kms", ("Alias",)): lambda c, i: c.describe_key(KeyId=i if i.startswith(("alias/", "arn:")) else f"alias/{i}"),
    ("ec2", ("Vpc", "DefaultVpc")): lambda c, i: _one(c.describe_vpcs(**_ec2_ids(i, "VpcIds"))["Vpcs"]),
    ("ec2", ("Subnet", "DefaultSubnet")): lambda c, i: _one(c.describe_subnets(**_ec2_ids(i, "SubnetIds"))["Subnets"]),
    ("ec2", ("SecurityGroup",)): lambda c, i: _one(
        c.describe_security_groups(**_ec2_ids(i, "GroupIds"))["SecurityGroups"]),
    ("secretsmanager", ("Secret",)): lambda c, i: c.describe_secret(SecretId=i),
    ("dynamodb", ("Table",)): lambda c, i: c.describe_table(TableName=_last(i)),
    ("sqs", ("Queue",)): lambda c, i: c.get_queue_url(QueueName=_last(i)),
    ("sns", ("Topic",)): lambda c, i: c.get_topic_attributes(TopicArn=i),
    ("ecr", ("Repository",)): lambda c, i: c.describe_repositories(repositoryNames=[_last(i)]),
    ("rds", ("Instance",)): lambda c, i: c.describe_db_instances(DBInstanceIdentifier=_last(i)),
    ("rds", ("Cluster",)): lambda c, i: c.describe_db_clusters(DBClusterIdentifier=_last(i)),
    ("eks", ("Cluster",)): lambda c, i: c.describe_cluster(name=_last(i)),
}


def _ec2_ids(identity: str, key: str) -> dict[str, Any]:
    """An EC2 id (`vpc-0123...`) by id, anything else by its Name tag."""
    last = _last(identity)
    if "-" in last and last.split("-", 1)[0] in ("vpc", "subnet", "sg"):
        return {key: [last]}
    return {"Filters": [{"Name": "tag:Name", "Values": [last]}]}


def _one(found: list) -> Any:
    if not found:
        raise LookupError("none matches")
    return found[0]


def _aws(ctx: DoctorContext, entry: inventory.Existing, name: str) -> Check:
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    declared = entry.region
    if declared is None:
        return Check(AREA, name, FAIL, "declared with a `location`, which AWS resources do not have",
                     f"declare its AWS region: `region:` in sahab:existing of Pulumi.{ctx.stack}.yaml")
    in_arn = _arn_region(entry.id)
    if in_arn and in_arn != declared:
        return Check(AREA, name, FAIL, f"its ARN is in {in_arn}, declared in {declared}",
                     "declare the region its ARN names")
    try:
        if entry.service == "s3":
            answer = _aws_client(ctx, "s3", declared).get_bucket_location(Bucket=_last(entry.id))
            actual = answer.get("LocationConstraint") or "us-east-1"  # S3 answers no constraint for us-east-1
            actual = "eu-west-1" if actual == "EU" else actual
            if actual != declared:
                return Check(AREA, name, FAIL, f"the bucket is in {actual}, declared in {declared}",
                             f"declare region {actual} (residency then judges it there), or use an in-country "
                             f"bucket")
            return Check(AREA, name, OK, f"in {actual}")
        if entry.service == "iam":
            getter = getattr(_aws_client(ctx, "iam", declared), f"get_{entry.kind.lower()}", None)
            if getter is None:
                return Check(AREA, name, SKIP, f"IAM {entry.kind} is not asked here", "verify it by hand")
            getter(**{f"{entry.kind}Name": _last(entry.id)})
            return Check(AREA, name, OK, "exists (IAM is global: it has no region)")
        finder = next((f for (service, kinds), f in _AWS_FINDERS.items()
                       if service == entry.service and entry.kind in kinds), None)
        if finder is None:
            return Check(AREA, name, SKIP, f"{entry.type} is not asked here",
                         f"verify by hand that it is in {declared}: it is judged as declared")
        finder(_aws_client(ctx, entry.service, declared), entry.id)
        return Check(AREA, name, OK, f"in {declared}")
    except NoCredentialsError:
        raise _Unanswered("no AWS credentials to ask with", "configure AWS credentials (aws configure, or "
                                                            "AWS_PROFILE) that may read this resource") from None
    except (LookupError, ClientError) as exc:
        code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else "NotFound"
        if isinstance(exc, ClientError) and ("AccessDenied" in code or "Unauthorized" in code):
            raise _Unanswered(f"AWS refused the read ({code})", "grant the auditor read access "
                                                                "(policies/iam/auditor-policy.json)") from None
        return Check(AREA, name, FAIL, f"not found in {declared} ({code})",
                     f"fix its `id` or `region` in sahab:existing of Pulumi.{ctx.stack}.yaml")
    except BotoCoreError as exc:
        raise _Unanswered(f"AWS did not answer: {exc}", "check the network path to AWS and retry") from None


# ---------------------------------------------------------------------------------------------------------
# Azure


def _azure_token(ctx: DoctorContext) -> str:
    if ctx.endpoints.get("azure"):
        return "loopback"  # a stand-in for Resource Manager (tests) takes no credential
    try:
        from azure.identity import DefaultAzureCredential
    except ImportError:
        raise _Unanswered("azure-identity is not installed", "pip install azure-identity, then `az login`") from None
    try:
        return ctx.cached("azure/token", lambda: DefaultAzureCredential().get_token(f"{ARM}/.default").token)
    except Exception as exc:  # azure-identity raises its own hierarchy; any failure means no credential
        raise _Unanswered(f"no Azure credential: {type(exc).__name__}", "`az login`, or set AZURE_CLIENT_ID/"
                                                                        "AZURE_TENANT_ID/AZURE_CLIENT_SECRET") from None


def _arm(ctx: DoctorContext, path: str, query: dict[str, str]) -> dict[str, Any] | None:
    base = ctx.endpoints.get("azure", ARM).rstrip("/")
    url = f"{base}{path}?{urllib.parse.urlencode({**query, 'api-version': ARM_API})}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {_azure_token(ctx)}"})
    try:
        with urllib.request.urlopen(request, timeout=ctx.timeout) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise _Unanswered(f"Resource Manager answered {exc.code}", "check the credential's read access "
                                                                  "(Reader on the subscription)") from None
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        raise _Unanswered(f"Resource Manager did not answer: {exc}", "check the network path to Azure") from None


def _azure(ctx: DoctorContext, entry: inventory.Existing, name: str) -> Check:
    declared = entry.location
    if declared is None:
        return Check(AREA, name, FAIL, "declared with a `region`, which Azure resources do not have",
                     f"declare its Azure location: `location:` in sahab:existing of Pulumi.{ctx.stack}.yaml")
    subscription = ctx.config.get("azure-native:subscriptionId")
    if not subscription:
        return Check(AREA, name, SKIP, "the stack names no azure-native:subscriptionId to look in",
                     "set azure-native:subscriptionId in the stack config")
    short = entry.id.rstrip("/").rsplit("/", 1)[-1]
    if entry.kind == "ResourceGroup":
        found = _arm(ctx, f"/subscriptions/{subscription}/resourcegroups/{short}", {})
        places = [found.get("location", "")] if found else []
    else:
        listed = _arm(ctx, f"/subscriptions/{subscription}/resources", {"$filter": f"name eq '{short}'"}) or {}
        group = entry.resource_group
        places = [r.get("location", "") for r in listed.get("value", [])
                  if group is None or f"/resourcegroups/{group.lower()}/" in str(r.get("id", "")).lower()]
    places = [p.replace(" ", "").lower() for p in places if p]
    if not places:
        return Check(AREA, name, FAIL, f"not found in subscription {subscription}",
                     f"fix its `id` (or `resourceGroup`) in sahab:existing of Pulumi.{ctx.stack}.yaml")
    if declared not in places:
        return Check(AREA, name, FAIL, f"it is in {', '.join(sorted(set(places)))}, declared in {declared}",
                     "declare the location it is in (residency then judges it there)")
    return Check(AREA, name, OK, f"in {declared}")
