"""Leak: services that send data to a server outside AWS named by URL: a Transfer Family connector (files sent by
SFTP/AS2) and an EMR Serverless application's Prometheus remote write."""
# expect: cloud-all-resource-references-in-country partner-sftp
# expect: cloud-all-resource-references-in-country spark

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.transfer.Connector("partner-sftp", access_role="arn:aws:iam::111122223333:role/transfer",
                       url="sftp://files.partner-hosting.com",
                       sftp_config={"trusted_host_keys": ["ssh-rsa AAAA"], "user_secret_id": "partner-sftp"})
aws.emrserverless.Application("spark", name="spark", release_label="emr-7.0.0", type="spark",
                              monitoring_configuration={"prometheus_monitoring_configuration": {
                                  "remote_write_url": "https://prometheus.partner-observability.com/api/v1/write"}})
