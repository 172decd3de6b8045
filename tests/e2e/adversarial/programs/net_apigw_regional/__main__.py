"""Look-alike (edge endpoints): a REST API that asks for a REGIONAL endpoint, and a function URL behind IAM auth."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.apigateway.RestApi("api", description="patient portal", endpoint_configuration={"types": "REGIONAL"})
fn = aws.lambda_.Function("records", role="arn:aws:iam::111122223333:role/records", runtime="python3.12",
                          handler="app.handler", s3_bucket="code", s3_key="records.zip", kms_key_arn=key.arn)
aws.lambda_.FunctionUrl("records-url", function_name=fn.name, authorization_type="AWS_IAM")
