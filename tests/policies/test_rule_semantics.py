"""What the rules must get right beyond the four basic cases: where a region comes from, correlating a bucket
with its separate resources, Azure pairs and `global`, storage classes per platform, per-stack settings."""

from __future__ import annotations

import json

from sahab.policies.core import Context, ResourceView
from sahab.policies.residency import effective_place

from tests.policies.policy_harness import UNKNOWN, Res, Stack, run
from tests.policies.test_rule_catalog import (
    ACCOUNT,
    BUCKET,
    BUCKET_V2,
    KEY_ARN,
    ME,
    SSE,
    account,
    attached,
    azure,
    bucket,
    replication,
    sse,
    storage_class,
)

RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
REGION = "aws-all-resource-region-allowed"
SSE_RULE = "aws-s3-bucket-sse-kms-cmk"
REPLICATION_RULE = "aws-s3-bucketreplication-destination-region-allowed"
LOCATION = "azure-all-resource-location-allowed"
STORAGE_CLASS = "kubernetes-storage-storageclass-encrypted"


def test_region_precedence_own_then_provider_then_stack():
    # Own region wins over the provider's, both ways.
    assert run(REGION, Res(BUCKET, {"region": "me-central-1"}, provider={"region": "eu-west-1"})) == []
    assert run(REGION, Res(BUCKET, {"region": "eu-west-1"}, provider=ME))
    # The default provider: the engine hands it the stack's aws:region as its input.
    stack_me = {"aws:region": "me-central-1"}
    assert run(REGION, Stack([Res(BUCKET, {}, provider={"region": "me-central-1"})], stack_me)) == []
    found = run(REGION, Stack([Res(BUCKET, {}, provider={"region": "us-east-1"})], {"aws:region": "us-east-1"}))
    assert found and "us-east-1" in found[0][0]
    # No region among a provider's inputs where the stack sets one: the program's own provider, whatever its
    # name (`aws.Provider("default")`), which takes its region from the environment. Refused, naming why.
    for name in ("default", "default_6_0_0", "partner"):
        found = run(REGION, Stack([Res(BUCKET, {}, provider={}, provider_name=name)], stack_me))
        assert found and f"explicit provider {name!r} sets no `region`" in found[0][0], name
    # Neither the provider nor the stack sets one: refused too.
    found = run(REGION, Stack([Res(BUCKET, {}, provider={})], {}))
    assert found and "nor does the stack config" in found[0][0]


def test_allowed_regions_come_from_the_policy_config():
    eu = Res(BUCKET, {}, provider={"region": "eu-west-1"})
    assert run(REGION, eu)
    assert run(REGION, eu, config={"allowedRegions": ["me-central-1", "eu-west-1"]}) == []


def test_sse_inline_and_by_value_correlation():
    inline = {"serverSideEncryptionConfiguration": {"rule": {"applyServerSideEncryptionByDefault": {
        "sseAlgorithm": "aws:kms", "kmsMasterKeyId": KEY_ARN}}}}
    assert run(SSE_RULE, Stack([Res(BUCKET_V2, inline, name="b", provider=ME)])) == []
    # A live adapter has no dependencies: the SSE resource names the bucket by its name.
    named = Res(BUCKET, {"bucket": "datasets-prod"}, name="b", provider=ME)
    by_value = Res(SSE, {"bucket": "datasets-prod", "rules": [{"applyServerSideEncryptionByDefault": {
        "sseAlgorithm": "aws:kms", "kmsMasterKeyId": KEY_ARN}}]}, name="sse", provider=ME)
    assert run(SSE_RULE, Stack([named, by_value])) == []


def test_sse_aws_managed_key_is_not_customer_managed():
    found = run(SSE_RULE, Stack([bucket(), sse(key="alias/aws/s3")]))
    assert found and "AWS-managed" in found[0][0]
    found = run(SSE_RULE, Stack([bucket(), sse(key=None)]))
    assert found and "kmsMasterKeyId" in found[0][0]


def test_sse_names_only_the_unencrypted_bucket():
    other = Res(BUCKET, {}, name="other", provider=ME)
    found = run(SSE_RULE, Stack([bucket(), sse(), other]))
    assert [urn for _, urn in found] == [other.urn]


def test_replication_unknown_destination_resolved_through_dependencies():
    in_region = bucket("dst")
    out_of_region = bucket("far", {"region": "eu-west-1"})
    assert run(REPLICATION_RULE, Stack([bucket(), in_region, replication({"bucket": UNKNOWN}, ["dst"])])) == []
    assert run(REPLICATION_RULE, Stack([bucket(), out_of_region, replication({"bucket": UNKNOWN}, ["far"])]))
    # Two destinations: the out-of-region one cannot hide behind the other.
    assert run(REPLICATION_RULE, Stack([bucket(), in_region, out_of_region,
                                        replication({"bucket": UNKNOWN}, ["dst", "far"])]))
    # A bucket outside the stack cannot be shown to be in the UAE.
    assert run(REPLICATION_RULE, Stack([bucket(), replication({"bucket": "arn:aws:s3:::someone-elses"})]))


def test_azure_global_only_for_allow_listed_types():
    assert run(LOCATION, azure("azure-native:privatedns:PrivateZone", {"location": "global"})) == []
    assert run(LOCATION, account(location="global"))


def test_azure_location_falls_back_to_group_then_provider_then_stack():
    group = ResourceView(RESOURCE_GROUP, "rg", "urn:rg", {"location": "UAE Central"})
    acct = ResourceView(ACCOUNT, "acct", "urn:acct", {"resourceGroupName": "rg-123"},
                        property_dependencies={"resourceGroupName": ("urn:rg",)})
    assert effective_place(acct, Context(resources=(group,))).value == "UAE Central"
    assert run(LOCATION, Res(ACCOUNT, {}, provider={"location": "westeurope"},
                             provider_type="pulumi:providers:azure-native"))
    # The default provider holds the stack's azure-native:location (the engine's inputs for it).
    assert run(LOCATION, Stack([Res(ACCOUNT, {}, provider={"location": "uaenorth"},
                                    provider_type="pulumi:providers:azure-native")],
                               {"azure-native:location": "uaenorth"})) == []
    # A child resource without a location of its own lives in its parent store: one of this program's is judged as
    # itself; one the program does not create (only named, or looked up) cannot be shown to be in the UAE.
    container = "azure-native:storage:BlobContainer"
    (problem,) = run(LOCATION, azure(container, {"accountName": "a"}))
    assert "lives in the StorageAccount 'a' (`accountName`), which this program does not create" in problem[0]
    assert run(LOCATION, Stack([account(accountName="a"), azure(container, {"accountName": "a"})])) == []
    by_output = Res(container, {"accountName": UNKNOWN}, provider={}, provider_type="pulumi:providers:azure-native",
                    name="c", deps={"accountName": ["r"]})
    assert run(LOCATION, Stack([account(), by_output])) == []
    assert run(LOCATION, Res(container, {"accountName": UNKNOWN}, provider={},
                             provider_type="pulumi:providers:azure-native"))


def test_geo_redundant_storage_in_uae_is_compliant():
    geo = "azure-storage-storageaccount-geo-replica-in-country"
    for location in ("uaenorth", "uaecentral"):
        for sku in ("Standard_GRS", "Standard_RAGRS", "Standard_GZRS", "Standard_RAGZRS"):
            assert run(geo, account(location=location, sku={"name": sku})) == []
    assert run(geo, account(location="westeurope", sku={"name": "Standard_LRS"})) == []  # no replica at all


def test_storage_classes_per_platform():
    des = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/diskEncryptionSets/des"
    assert run(STORAGE_CLASS, storage_class({"skuName": "Premium_LRS", "diskEncryptionSetID": des},
                                            provisioner="disk.csi.azure.com")) == []
    assert run(STORAGE_CLASS, storage_class({"skuName": "Premium_LRS"}, provisioner="disk.csi.azure.com"))
    luks = {"sahab.io/encryption": "luks"}
    assert run(STORAGE_CLASS, storage_class({"nodePath": "/var/lib/sahab/volumes"},
                                            provisioner="sahab.io/luks-local-path", annotations=luks)) == []
    assert run(STORAGE_CLASS, storage_class({}, provisioner="sahab.io/luks-local-path", annotations=luks)) == []
    assert run(STORAGE_CLASS, storage_class({}, provisioner="sahab.io/luks-local-path"))
    # The annotation is Sahab's word about Sahab's own provisioner, on the LUKS volume: nothing else.
    for other in ("rancher.io/local-path", "nfs.csi.k8s.io", "kubernetes.io/no-provisioner", "cluster.local/nfs",
                  "example.com/luks-local-path", "sahab.io/luks-local-path-x"):
        found = run(STORAGE_CLASS, storage_class({}, provisioner=other, annotations=luks))
        assert found and "counts only on Sahab's own sahab.io/luks-local-path" in found[0][0], other
    for path in ("/tmp", "/var/lib/sahab/volumes-other", "/var/lib/sahab", "relative/path"):
        found = run(STORAGE_CLASS, storage_class({"nodePath": path}, provisioner="sahab.io/luks-local-path",
                                                 annotations=luks))
        assert found and "outside the LUKS volume" in found[0][0], path
    assert run(STORAGE_CLASS, storage_class({"encrypted": "true"}, provisioner="rook-ceph.rbd.csi.ceph.com")) == []


def test_onprem_component_outside_the_country():
    site = Res("sahab:onprem:Site", {"name": "fra-dc", "country": "DE"}, name="fra-dc")
    found = run("onprem-site-country-allowed", Stack([site]))
    assert found == [(found[0][0], site.urn)] and "'DE'" in found[0][0]


def test_tls_policy_accepts_bool_if_exists_and_list_values():
    doc = {"Statement": {"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": "*",
                         "Condition": {"BoolIfExists": {"aws:SecureTransport": ["false"]}}}}
    scenario = Stack([bucket(), attached("aws:s3/bucketPolicy:BucketPolicy", {"policy": json.dumps(doc)})])
    assert run("aws-s3-bucket-deny-insecure-transport", scenario) == []


def test_container_registry_geo_replica_outside_the_country():
    replica = "azure-native:containerregistry:Replication"
    assert run(LOCATION, azure(replica, {"registryName": "sahabacr", "location": "uaecentral"})) == []
    found = run(LOCATION, azure(replica, {"registryName": "sahabacr", "location": "westeurope"}))
    assert found and "westeurope" in found[0][0]


# ---------------------------------------------------------------------------------------------------------
# Coverage is declared where it is judged: a stack rule that reads a type judges it, and says so in `covers`


def test_every_stack_rule_declares_the_types_it_reads(monkeypatch):
    """SAHAB-CLOUD-030 trusts `types`/`covers`; a stack rule that selects resources by type (`ctx.of_type`)
    without declaring them would leave those types "unjudged" (an S3 replication config between two compliant
    buckets was refused so)."""
    from sahab.policies.core import all_rules
    from sahab.policies.egress import key_paths

    read: list[str] = []
    original = Context.of_type

    def recording(self, *types):
        read.extend(types)
        return original(self, *types)

    monkeypatch.setattr(Context, "of_type", recording)
    undeclared = {}
    for r in all_rules():
        if r.scope != "stack":
            continue
        read.clear()
        r.run_stack(Context(phase="update"))
        missing = {t for t in set(read) - set(r.covers) - set(r.types) if key_paths(t)}  # data-holding types
        if missing:
            undeclared[r.id] = sorted(missing)
    assert not undeclared, f"stack rules reading types they do not declare in `covers`: {undeclared}"


def test_an_unknown_place_is_the_place_rules_not_the_public_policy_rules():
    """An unknown `region`, `location` or key id is no policy document: SAHAB-CLOUD-010 leaves it to the rules
    that judge places and keys (which fail closed, naming it), and still fails closed on an unknown policy."""
    for props in ({"cidrBlock": "10.0.0.0/16", "region": UNKNOWN}, {"kmsMasterKeyId": UNKNOWN}):
        view = Res("aws:sns/topic:Topic", props, name="topic", provider={"region": "me-central-1"})
        assert run("cloud-all-resource-policy-not-public", view, phase="update") == []
    view = Res("aws:sns/topic:Topic", {"policy": UNKNOWN}, name="topic", provider={"region": "me-central-1"})
    assert run("cloud-all-resource-policy-not-public", view, phase="update")
    view = Res("aws:ec2/vpc:Vpc", {"cidrBlock": "10.0.0.0/16", "region": UNKNOWN}, name="vpc",
               provider={"region": "me-central-1"})
    assert run("aws-all-resource-region-allowed", view, phase="update")


def test_an_explicit_provider_without_a_region_is_not_given_the_stacks():
    """The engine configures only default providers from `aws:region`; an explicit `aws.Provider` without
    `region` takes it from AWS_REGION/AWS_DEFAULT_REGION or its profile when it runs, so its place is unknown."""
    config = {"aws:region": "me-central-1"}
    vpc = Res("aws:ec2/vpc:Vpc", {"cidrBlock": "10.0.0.0/16"}, name="vpc", provider={"profile": "partner"},
              provider_name="partner")
    found = run("aws-all-resource-region-allowed", Stack([vpc], config))
    assert found and "explicit provider 'partner'" in found[0][0]
    default = Res("aws:ec2/vpc:Vpc", {"cidrBlock": "10.0.0.0/16"}, name="vpc", provider={"region": "me-central-1"})
    assert run("aws-all-resource-region-allowed", Stack([default], config)) == []
    pinned = Res("aws:ec2/vpc:Vpc", {"cidrBlock": "10.0.0.0/16"}, name="vpc",
                 provider={"profile": "partner", "region": "me-central-1"}, provider_name="partner")
    assert run("aws-all-resource-region-allowed", Stack([pinned], config)) == []


def test_a_bucket_name_names_only_a_bucket():
    """S3 bucket names are one global namespace: a topic of the program that carries a partner bucket's name does not
    place that bucket, while the program's own buckets (general purpose or directory) are found by name and ARN."""
    from sahab.policies.residency import place_of_reference

    me = {"region": "me-central-1"}
    topic = ResourceView("aws:sns/topic:Topic", "decoy", "urn:decoy", {"name": "partner-archive", **me},
                         identities=frozenset({"partner-archive"}))
    directory = ResourceView("aws:s3/directoryBucket:DirectoryBucket", "fast", "urn:fast",
                             {"bucket": "fast--mec1-az1--x-s3", **me}, identities=frozenset({"fast--mec1-az1--x-s3"}))
    ctx = Context(resources=(topic, directory))
    for reference in ("arn:aws:s3:::partner-archive", "s3://partner-archive/x", "https://partner-archive.s3.amazonaws.com/x"):
        assert place_of_reference(reference, ctx).resource is None, reference
    for reference in ("arn:aws:s3:::fast--mec1-az1--x-s3", "s3://fast--mec1-az1--x-s3/x"):
        assert place_of_reference(reference, ctx).resource == "urn:fast", reference
