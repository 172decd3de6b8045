"""Look-alike: an AppSync HTTP data source whose endpoint is a private address inside the VPC."""
# expect: pass

import pulumi_aws as aws

api = aws.appsync.GraphQLApi("api", authentication_type="AWS_IAM", visibility="PRIVATE")
aws.appsync.DataSource("internal-api", api_id=api.id, name="internal", type="HTTP",
                       http_config={"endpoint": "https://10.20.8.4"})
