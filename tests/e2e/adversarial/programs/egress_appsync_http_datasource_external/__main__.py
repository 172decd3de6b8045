"""Leak: an AppSync HTTP data source: every resolver on it sends the GraphQL request's arguments (the callers'
data) to the endpoint, a host outside this program."""
# expect: cloud-all-resource-references-in-country partner-api

import pulumi_aws as aws

api = aws.appsync.GraphQLApi("api", authentication_type="AWS_IAM", visibility="PRIVATE")
aws.appsync.DataSource("partner-api", api_id=api.id, name="partner", type="HTTP",
                       http_config={"endpoint": "https://crm.partner-saas.io"})
