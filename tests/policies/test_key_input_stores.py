"""Stores whose SDK names their at-rest key `...EncryptionKey...` (a WorkSpace's `volumeEncryptionKey`, a Bedrock
agent's `customerEncryptionKeyArn`, an Azure FHIR service's `keyEncryptionKeyUrl`) or holds it as a key id, URI or
URL in a block about encryption (Azure Managed Lustre's `encryptionSettings.keyEncryptionKey.keyUrl`): the model
reads them as data stores, and the encryption rules judge them (an unencrypted WorkSpace once passed the whole
pack). A vault that keeps a secret or a certificate is no store's key, and a compliant Aurora instance, event source
mapping or delivery channel is no unjudged store (the open-world rule once refused them)."""

from __future__ import annotations

import pytest
from sahab.policies.egress import key_paths

from tests.policies.policy_harness import UNKNOWN, Res, Stack, run

ME = {"region": "me-central-1"}
KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
KEY_ABROAD = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
AWS_CMK = "aws-storage-datastore-encrypted-cmk"
AZURE_CMK = "azure-storage-datastore-encrypted-cmk"
RELAXED = {"allowProviderManagedKeys": True}  # the rule's own config, as the dev and smb stacks set it
WORKSPACE = "aws:workspaces/workspace:Workspace"


@pytest.mark.parametrize(("type_", "key"), [
    (WORKSPACE, "volumeEncryptionKey"),
    ("aws:codebuild/project:Project", "encryptionKey"),
    ("aws:bedrock/agentAgent:AgentAgent", "customerEncryptionKeyArn"),
    ("aws:drs/replicationConfigurationTemplate:ReplicationConfigurationTemplate", "ebsEncryptionKeyArn"),
    ("aws:customerprofiles/domain:Domain", "defaultEncryptionKey"),
    ("azure-native:healthcareapis:FhirService", "encryption.customerManagedKeyEncryption.keyEncryptionKeyUrl"),
    ("azure-native:devcenter:EncryptionSet", "keyEncryptionKeyUrl"),
    # A key's id, URI or URL inside a block about encryption.
    ("azure-native:storagecache:AmlFilesystem", "encryptionSettings.keyEncryptionKey.keyUrl"),
    ("azure-native:recoveryservices:Vault", "properties.encryption.keyVaultProperties.keyUri"),
    ("aws:kinesisanalyticsv2/application:Application",
     "applicationConfiguration.applicationEncryptionConfiguration.keyId"),
])
def test_a_key_named_encryption_key_marks_a_data_store(type_, key):
    assert key in key_paths(type_)


@pytest.mark.parametrize("type_", [
    "azure-native:cosmosdb:SqlResourceSqlContainer",  # Always Encrypted keys encrypt chosen fields in the client
    "azure-native:app:ContainerApp",  # `configuration.secrets[].keyVaultUrl`: a secret kept in a vault
    "azure-native:web:Certificate",  # `keyVaultId`: where the certificate is kept
    "azure-native:network:FirewallPolicy",  # `transportSecurity.certificateAuthority.keyVaultSecretId`
    "azure-native:app:ManagedEnvironmentsStorage",  # `azureFile.accountKeyVaultProperties`: the share's account key
])
def test_a_vault_holding_secrets_or_a_field_key_does_not_make_a_store(type_):
    assert key_paths(type_) == []


def test_a_vault_in_a_block_about_encryption_is_the_stores_key():
    assert key_paths("azure-native:kusto:Cluster") == ["keyVaultProperties.keyVaultUri"]
    assert "encryption.keyVaultProperties.keyVaultUri" in key_paths("azure-native:storage:StorageAccount")


def workspace(**props):
    return Res(WORKSPACE, {"bundleId": "wsb-1", "directoryId": "d-1", "userName": "analyst", **props}, provider=ME)


@pytest.mark.parametrize(("props", "expected"), [
    ({}, "`rootVolumeEncryptionEnabled`/`volumeEncryptionKey` is not encrypted at rest"),
    ({"rootVolumeEncryptionEnabled": True, "volumeEncryptionKey": KEY_ARN},
     "`userVolumeEncryptionEnabled`/`volumeEncryptionKey` is not encrypted at rest"),
    ({"rootVolumeEncryptionEnabled": True, "userVolumeEncryptionEnabled": True},
     "uses a provider-managed key"),
    ({"rootVolumeEncryptionEnabled": True, "userVolumeEncryptionEnabled": True, "volumeEncryptionKey": KEY_ABROAD},
     "'eu-west-1'"),
    ({"rootVolumeEncryptionEnabled": True, "userVolumeEncryptionEnabled": True, "volumeEncryptionKey": KEY_ARN},
     None),
])
def test_a_workspace_encrypts_both_volumes_with_a_key_held_in_the_uae(props, expected):
    found = [message for message, _ in run(AWS_CMK, workspace(**props))]
    if expected is None:
        assert found == []
    else:
        assert found and expected in found[0], found


def test_relaxed_stacks_accept_the_workspaces_key_but_never_an_unencrypted_volume():
    encrypted = workspace(rootVolumeEncryptionEnabled=True, userVolumeEncryptionEnabled=True)
    assert run(AWS_CMK, encrypted, config=RELAXED) == []
    assert run(AWS_CMK, workspace(rootVolumeEncryptionEnabled=True), config=RELAXED)


def test_an_unknown_switch_fails_once_the_update_still_does_not_know_it():
    props = {"rootVolumeEncryptionEnabled": UNKNOWN, "userVolumeEncryptionEnabled": True,
             "volumeEncryptionKey": KEY_ARN}
    assert run(AWS_CMK, workspace(**props)) == []
    assert run(AWS_CMK, workspace(**props), phase="update")


@pytest.mark.parametrize(("props", "fails"), [
    ({"ebsEncryption": "DEFAULT"}, True),  # the account's EBS default key
    ({"ebsEncryption": "CUSTOM", "ebsEncryptionKeyArn": KEY_ARN}, False),
    ({"ebsEncryption": "CUSTOM", "ebsEncryptionKeyArn": KEY_ABROAD}, True),
])
def test_drs_replicates_disks_under_a_customer_key(props, fails):
    template = Res("aws:drs/replicationConfigurationTemplate:ReplicationConfigurationTemplate",
                   {"stagingAreaSubnetId": "subnet-1", **props}, provider=ME)
    assert bool(run(AWS_CMK, template)) == fails


@pytest.mark.parametrize("type_", ["aws:codebuild/project:Project", "aws:bedrock/agentAgent:AgentAgent",
                                   "aws:emr/studio:Studio", "aws:codeartifact/domain:Domain"])
def test_a_service_that_always_encrypts_needs_a_customer_key(type_):
    key_input = key_paths(type_)[0]
    assert run(AWS_CMK, Res(type_, {"name": "x"}, provider=ME))
    assert run(AWS_CMK, Res(type_, {"name": "x", key_input: KEY_ARN}, provider=ME)) == []
    assert run(AWS_CMK, Res(type_, {"name": "x"}, provider=ME), config=RELAXED) == []


def test_output_written_to_the_programs_bucket_takes_the_buckets_key_unless_one_is_given():
    def report_group(destination):
        return Res("aws:codebuild/reportGroup:ReportGroup",
                   {"type": "TEST", "exportConfig": {"type": "S3", "s3Destination": destination}}, provider=ME)

    assert run(AWS_CMK, report_group({"bucket": "reports"})) == []
    assert run(AWS_CMK, report_group({"bucket": "reports", "encryptionKey": KEY_ARN})) == []
    assert run(AWS_CMK, report_group({"bucket": "reports", "encryptionKey": KEY_ABROAD}))


@pytest.mark.parametrize(("monitoring", "fails"), [
    (None, False),  # EMR's managed persistence keeps job logs 30 days; only a key that is given is judged
    ({"managedPersistenceMonitoringConfiguration": {"enabled": True, "encryptionKeyArn": KEY_ARN}}, False),
    ({"managedPersistenceMonitoringConfiguration": {"enabled": True, "encryptionKeyArn": KEY_ABROAD}}, True),
    ({"s3MonitoringConfiguration": {"logUri": "s3://logs/", "encryptionKeyArn": KEY_ABROAD}}, True),
])
def test_emr_serverless_job_logs_keys_are_held_in_the_uae(monitoring, fails):
    props = {"name": "etl", "releaseLabel": "emr-7.1.0", "type": "spark"}
    if monitoring is not None:
        props["monitoringConfiguration"] = monitoring
    assert bool(run(AWS_CMK, Res("aws:emrserverless/application:Application", props, provider=ME))) == fails


def azure(type_, props, name="r", deps=None):
    return Res(type_, props, name=name, provider={}, provider_type="pulumi:providers:azure-native", deps=deps or {})


def test_a_fhir_service_keeps_health_records_under_the_programs_key_vault_key():
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "records-kv"}, name="kv")
    key_url = "https://records-kv.vault.azure.net/keys/fhir"
    fhir = "azure-native:healthcareapis:FhirService"
    plain = azure(fhir, {"location": "uaenorth", "kind": "fhir-R4"})
    keyed = azure(fhir, {"location": "uaenorth", "kind": "fhir-R4", "encryption": {
        "customerManagedKeyEncryption": {"keyEncryptionKeyUrl": key_url}}}, deps={"encryption": ["kv"]})
    found = run(AZURE_CMK, Stack([plain]))
    assert found and "FHIR service" in found[0][0] and "provider-managed" in found[0][0]
    assert run(AZURE_CMK, Stack([vault, keyed])) == []


def test_dev_box_disks_take_the_encryption_sets_key_only_when_it_is_enabled():
    key_url = "https://dev-kv.vault.azure.net/keys/devbox"
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "dev-kv"}, name="kv")

    def encryption_set(status):
        return azure("azure-native:devcenter:EncryptionSet", {"keyEncryptionKeyUrl": key_url,
                     "devboxDisksEncryptionEnableStatus": status}, name="es", deps={"keyEncryptionKeyUrl": ["kv"]})

    assert run(AZURE_CMK, Stack([vault, encryption_set("Enabled")])) == []
    assert run(AZURE_CMK, Stack([vault, encryption_set("Disabled")]))


def test_the_open_world_rule_no_longer_calls_these_stores_unjudged():
    assert run("cloud-all-datastore-judged", workspace()) == []
    connector = azure("azure-native:awsconnector:CodeBuildProject", {"location": "uaenorth", "properties": {
        "awsProperties": {"encryptionKey": KEY_ARN}}})
    assert run("cloud-all-datastore-judged", Stack([connector]))


def test_managed_lustre_for_training_data_needs_the_programs_key():
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "lustre-kv"}, name="kv")
    lustre = "azure-native:storagecache:AmlFilesystem"
    props = {"location": "uaenorth", "storageCapacityTiB": 16, "sku": {"name": "AMLFS-Durable-Premium-125"}}
    keyed = {**props, "encryptionSettings": {"keyEncryptionKey": {
        "keyUrl": "https://lustre-kv.vault.azure.net/keys/amlfs/1", "sourceVault": {"id": "kv"}}}}
    assert run(AZURE_CMK, Stack([azure(lustre, props)]))
    assert run(AZURE_CMK, Stack([vault, azure(lustre, keyed, deps={"encryptionSettings": ["kv"]})])) == []


@pytest.mark.parametrize(("source", "fails"), [("Microsoft.Batch", True), ("microsoft.keyvault", False),
                                              (UNKNOWN, False)])
def test_a_batch_account_takes_its_vault_key_only_when_its_key_source_says_so(source, fails):
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "batch-kv"}, name="kv")
    account = azure("azure-native:batch:BatchAccount", {"location": "uaenorth", "encryption": {
        "keySource": source, "keyVaultProperties": {"keyIdentifier": "https://batch-kv.vault.azure.net/keys/b"}}},
        deps={"encryption": ["kv"]})
    assert bool(run(AZURE_CMK, Stack([vault, account]))) == fails


def test_a_firewalls_configuration_key_is_judged_only_when_one_is_given():
    def firewall(**encryption):
        props = {"name": "egress", "firewallPolicyArn": "arn:aws:network-firewall:me-central-1:1:firewall-policy/p",
                 "vpcId": "vpc-1"}
        if encryption:
            props["encryptionConfiguration"] = encryption
        return Res("aws:networkfirewall/firewall:Firewall", props, provider=ME)

    assert run(AWS_CMK, firewall()) == []  # AWS's own key for rules that hold no one's data
    assert run(AWS_CMK, firewall(type="CUSTOMER_KMS", keyId=KEY_ARN)) == []
    assert run(AWS_CMK, firewall(type="CUSTOMER_KMS", keyId=KEY_ABROAD))
    assert run("cloud-all-datastore-judged", firewall()) == []


def test_a_sql_managed_instance_protects_its_databases_with_the_programs_vault_key():
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "sql-kv"}, name="kv")
    props = {"location": "uaenorth", "subnetId": "/subscriptions/s/resourceGroups/n/providers/Microsoft.Network/"
             "virtualNetworks/v/subnets/sqlmi", "sku": {"name": "GP_Gen5"}}
    found = run(AZURE_CMK, Stack([azure("azure-native:sql:ManagedInstance", props)]))
    assert found and "SQL managed instance" in found[0][0] and "provider-managed" in found[0][0]
    keyed = azure("azure-native:sql:ManagedInstance", {**props, "keyId": "https://sql-kv.vault.azure.net/keys/tde/1"},
                  deps={"keyId": ["kv"]})
    assert run(AZURE_CMK, Stack([vault, keyed])) == []


def test_an_aurora_instance_keeps_its_data_in_the_clusters_storage():
    """Its own key is Performance Insights', judged only when given; it is no unjudged store."""
    instance = Res("aws:rds/clusterInstance:ClusterInstance", {"clusterIdentifier": "db", "instanceClass":
                   "db.r6g.large", "engine": "aurora-postgresql"}, provider=ME)
    assert run("cloud-all-datastore-judged", instance) == []
    assert run(AWS_CMK, instance) == []
    abroad = Res(instance.type, {**instance.props, "performanceInsightsEnabled": True,
                                 "performanceInsightsKmsKeyId": KEY_ABROAD}, provider=ME)
    assert run(AWS_CMK, abroad)


@pytest.mark.parametrize(("options", "fails"), [
    (None, True),  # an AWS-owned key by default
    ({"useAwsOwnedKey": False}, True),  # the account's aws/mq key
    ({"useAwsOwnedKey": False, "kmsKeyId": KEY_ARN}, False),
])
def test_an_mq_broker_keeps_messages_under_a_customer_key(options, fails):
    props = {"brokerName": "jobs", "engineType": "RabbitMQ", "hostInstanceType": "mq.m5.large"}
    if options is not None:
        props["encryptionOptions"] = options
    assert bool(run(AWS_CMK, Res("aws:mq/broker:Broker", props, provider=ME))) == fails


@pytest.mark.parametrize(("encryption", "fails"), [
    (None, True),
    ({"status": "Disabled", "keyVaultProperties": {"keyIdentifier": "https://ml-kv.vault.azure.net/keys/w"}}, True),
    ({"status": "Enabled", "keyVaultProperties": {"keyIdentifier": "https://ml-kv.vault.azure.net/keys/w"}}, False),
])
def test_an_azure_ml_workspace_takes_the_programs_key_when_its_encryption_is_enabled(encryption, fails):
    vault = azure("azure-native:keyvault:Vault", {"location": "uaenorth", "vaultName": "ml-kv"}, name="kv")
    props = {"location": "uaenorth", **({"encryption": encryption} if encryption else {})}
    workspace = azure("azure-native:machinelearningservices:Workspace", props, deps={"encryption": ["kv"]})
    assert bool(run(AZURE_CMK, Stack([vault, workspace]))) == fails


@pytest.mark.parametrize("resource", [
    Res("aws:cfg/deliveryChannel:DeliveryChannel", {"s3BucketName": "config-history"}, provider=ME),
    Res("aws:ssm/resourceDataSync:ResourceDataSync", {"name": "inventory", "s3Destination": {
        "bucketName": "inventory", "region": "me-central-1"}}, provider=ME),
    Res("aws:pipes/pipe:Pipe", {"source": "arn:aws:sqs:me-central-1:1:q", "target": "arn:aws:sqs:me-central-1:1:t",
                                "roleArn": "arn:aws:iam::1:role/p"}, provider=ME),
    Res("azure-native:app:ManagedEnvironment", {"location": "uaenorth"}, provider={},
        provider_type="pulumi:providers:azure-native"),
], ids=lambda r: r.type.split(":")[1])
def test_services_writing_into_the_programs_stores_are_judged_by_the_key_they_are_given(resource):
    """No key: the bucket, queue or disk they write to keeps its own (judged there); they are no unjudged store."""
    assert run("cloud-all-datastore-judged", resource) == []
    rule = AZURE_CMK if resource.type.startswith("azure-native") else AWS_CMK
    assert run(rule, resource) == []
