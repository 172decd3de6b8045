"""Leak (anonymous web endpoint): a function URL without authentication in front of a records API."""
# expect: cloud-all-web-endpoint-not-anonymous records-url


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

fn = aws.lambda_.Function("records", role="arn:aws:iam::111122223333:role/records", runtime="python3.12",
                          handler="app.handler", s3_bucket="code", s3_key="records.zip", kms_key_arn=key.arn)
aws.lambda_.FunctionUrl("records-url", function_name=fn.name, authorization_type="NONE")
