"""Leak: the route's target is `integrations/<id>` of an integration this program does not create, so where the
requests go cannot be shown."""
# expect: cloud-all-resource-references-in-country route

import pulumi_aws as aws

api = aws.apigatewayv2.Api("api", protocol_type="HTTP")
aws.apigatewayv2.Route("route", api_id=api.id, route_key="GET /orders", target="integrations/a1b2c3d")
