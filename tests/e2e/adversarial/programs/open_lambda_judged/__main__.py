"""Look-alike (open world): a Lambda function (now a judged store) under this program's key."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.lambda_.Function("handler", role="arn:aws:iam::111122223333:role/handler", runtime="python3.12",
                     handler="app.handler", s3_bucket="code", s3_key="handler.zip", kms_key_arn=key.arn)
