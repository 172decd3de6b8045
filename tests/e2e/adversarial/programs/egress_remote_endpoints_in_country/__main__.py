"""Look-alike: a Transfer Family connector to an SFTP server on the private network, and an EMR Serverless
application remote-writing its metrics to Amazon Managed Prometheus in me-central-1."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.transfer.Connector("onprem-sftp", access_role="arn:aws:iam::111122223333:role/transfer",
                       url="sftp://10.20.8.15",
                       sftp_config={"trusted_host_keys": ["ssh-rsa AAAA"], "user_secret_id": "onprem-sftp"})
aws.emrserverless.Application("spark", name="spark", release_label="emr-7.0.0", type="spark",
                              monitoring_configuration={"prometheus_monitoring_configuration": {
                                  "remote_write_url": "https://aps-workspaces.me-central-1.amazonaws.com/"
                                                      "workspaces/ws-0a1b2c/api/v1/remote_write"}})
