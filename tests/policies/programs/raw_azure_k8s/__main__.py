"""A program written with the raw azure-native and kubernetes providers: a compliant geo-redundant account in
UAE North, an account in West Europe with public blobs, and an unencrypted EBS storage class."""

import pulumi_azure_native as azure_native
import pulumi_kubernetes as k8s

group = azure_native.resources.ResourceGroup("rg", location="uaenorth")
good = azure_native.storage.StorageAccount(
    "good", resource_group_name=group.name, location="uaenorth", kind="StorageV2",
    sku={"name": "Standard_GRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False)
europe = azure_native.storage.StorageAccount(
    "europe", resource_group_name=group.name, location="westeurope", kind="StorageV2",
    sku={"name": "Standard_RAGRS"}, allow_blob_public_access=True)
plain = k8s.storage.v1.StorageClass("plain", provisioner="ebs.csi.aws.com", parameters={"type": "gp3"})
