"""Leak: the Glue Data Catalog left unencrypted."""
# expect: aws-storage-datastore-encrypted-cmk catalog

import pulumi_aws as aws

aws.glue.DataCatalogEncryptionSettings("catalog", data_catalog_encryption_settings={
    "connection_password_encryption": {"return_connection_password_encrypted": False},
    "encryption_at_rest": {"catalog_encryption_mode": "DISABLED"}})
