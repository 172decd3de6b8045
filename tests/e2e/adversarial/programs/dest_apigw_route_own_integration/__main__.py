"""Look-alike: the route's target is `integrations/<id>` of this program's own integration, which proxies to a
private address inside the VPC."""
# expect: pass

import pulumi_aws as aws

api = aws.apigatewayv2.Api("api", protocol_type="HTTP")
integration = aws.apigatewayv2.Integration("orders", api_id=api.id, integration_type="HTTP_PROXY",
                                           integration_method="GET", integration_uri="http://10.20.1.15/orders")
aws.apigatewayv2.Route("route", api_id=api.id, route_key="GET /orders",
                       target=integration.id.apply(lambda id: f"integrations/{id}"))
