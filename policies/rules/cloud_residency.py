"""Residency across every provider package: where any other cloud's resources sit, where every resource's
inputs point, and the global edge services that copy data to caches around the world.

The mechanism is policies/residency.py; AWS and Azure resources are judged by the same function under their
own rule ids (SAHAB-AWS-001, SAHAB-AZ-001)."""

from __future__ import annotations

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    health_data,
    iso27001,
    known,
    lookup,
    pdpl,
    rule,
    truthy,
)
from ..residency import AWS_PACKAGES, AZURE_PACKAGES, in_scope, place_problem, reference_findings

RESIDENCY = (pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"), iso27001("A.5.34"))


@rule(id="SAHAB-CLOUD-001", name="cloud-all-resource-region-allowed",
      title="Every resource of any other cloud package lives in an allowed place",
      description="Resources of every provider package other than aws/aws-native and azure-native/azure (gcp, "
                  "digitalocean, oci, a package never seen before) are judged by the same mechanism: their own "
                  "`region`/`location`/`zone`, else their provider's, else the stack config. Packages of clouds "
                  "with no UAE region fail; a place that cannot be resolved fails closed.",
      remediation="Build the resource on AWS me-central-1 or Azure UAE North/UAE Central, or add a region of "
                  "that cloud inside the UAE to the operator's `allowedRegions`.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def cloud_resource_place(ctx: Context):
    for view in ctx.resources:
        if view.package in AWS_PACKAGES or view.package in AZURE_PACKAGES:
            continue
        problem = place_problem(view, ctx)
        if problem:
            yield Finding(problem, view.urn)


@rule(id="SAHAB-CLOUD-002", name="cloud-all-resource-references-in-country",
      title="No input of any resource points outside the allowed places",
      description="Every input of every resource (providers and Kubernetes objects included) is scanned, JSON "
                  "documents and user data too, for places outside the allowed set: region codes of every AWS "
                  "partition, GCP regions and zones, Azure locations, ARNs, ARM ids and service endpoints that "
                  "name a region. A destination input (replica, partner, target, copy, ...) naming a bucket or "
                  "ARM resource this program does not create fails closed: its place cannot be shown.",
      remediation="Point replicas, subscriptions, endpoints, log destinations and copies at resources in "
                  "me-central-1/uaenorth/uaecentral that this program creates.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def cloud_resource_references(ctx: Context):
    for view in ctx.resources:
        for message in reference_findings(view, ctx):
            yield Finding(message, view.urn)


# Services that serve or accelerate data from points of presence worldwide: their caches are outside the UAE
# whatever region their control plane is created in.
EDGE_MODULES = {
    "aws": ("cloudfront", "globalaccelerator"),
    "aws-native": ("cloudfront", "globalaccelerator"),
    "azure-native": ("cdn", "frontdoor"),
    "azure": ("cdn", "frontdoor"),
    "gcp": ("compute/backendBucket", "compute/globalForwardingRule"),
}
EDGE_TYPES = {
    "aws:lightsail/distribution:Distribution": "a Lightsail distribution (CloudFront)",
    # "Amplify deploys your app to the AWS global content delivery network" (AWS Amplify Hosting user guide,
    # https://docs.aws.amazon.com/amplify/latest/userguide/welcome.html).
    "aws:amplify/app:App": "Amplify Hosting, served from AWS's global CDN",
    "aws:amplify/branch:Branch": "Amplify Hosting, served from AWS's global CDN",
    "aws:amplify/domainAssociation:DomainAssociation": "Amplify Hosting, served from AWS's global CDN",
    # Every Cognito user pool domain is a CloudFront distribution (pulumi_aws cognito.UserPoolDomain's
    # `cloudfront_distribution` output: "The Amazon CloudFront endpoint ...").
    "aws:cognito/userPoolDomain:UserPoolDomain": "a Cognito hosted-UI domain, a CloudFront distribution",
    # "static assets ... are instead served from points geographically distributed around the world" (Azure
    # Static Web Apps overview, https://learn.microsoft.com/azure/static-web-apps/overview).
    "azure-native:web:StaticSite": "Azure Static Web Apps, served from points around the world",
}
EDGE_PACKAGES = ("cloudflare", "fastly", "akamai")
# API Gateway endpoints are edge-optimized (CloudFront) unless they ask otherwise: `endpointConfiguration.types`
# "If unspecified, defaults to `EDGE`" (pulumi_aws apigateway RestApiEndpointConfigurationArgs); a custom domain
# with an edge certificate (`certificateArn`, `certificateName`/`certificateBody`: "Used when an edge-optimized
# domain name is desired", "Only valid for `EDGE`") is edge-optimized too.
EDGE_BY_DEFAULT = {"aws:apigateway/restApi:RestApi": (),
                   "aws:apigateway/domainName:DomainName": ("certificateArn", "certificateName", "certificateBody")}


def edge_service(view: ResourceView) -> str | None:
    """Why this resource serves data from points of presence worldwide, else None."""
    if view.package in EDGE_PACKAGES:
        return f"{view.type} is a third-party CDN"
    if view.type in EDGE_TYPES:
        return f"{view.type} is {EDGE_TYPES[view.type]}"
    module = view.type.split(":")[1] if view.type.count(":") >= 2 else ""
    for prefix in EDGE_MODULES.get(view.package, ()):
        if module == prefix or module.startswith(prefix + "/") or module.split("/")[0] == prefix:
            return f"{view.type} is a global edge service"
    if view.package == "aws" and view.type.startswith("aws:wafv2/"):
        scope = lookup(view.props, "scope")
        if scope is UNKNOWN:
            return f"{view.type}: `scope` is unknown, and a CLOUDFRONT scope is a global edge service; fails closed"
        if scope == "CLOUDFRONT":
            return f"{view.type} has the CLOUDFRONT scope, a global edge service"
    if view.type in EDGE_BY_DEFAULT:
        types = lookup(view.props, "endpointConfiguration", "types")
        if types is UNKNOWN:
            return f"{view.type}: `endpointConfiguration.types` is unknown, and EDGE is its default; fails closed"
        listed = [types] if isinstance(types, str) else list(types) if known(types) else []
        if "EDGE" in listed:
            return f"{view.type} is edge-optimized (`endpointConfiguration.types` is EDGE): served through CloudFront"
        if not listed:
            edge_inputs = [k for k in EDGE_BY_DEFAULT[view.type] if lookup(view.props, k) is not MISSING]
            if not EDGE_BY_DEFAULT[view.type] or edge_inputs:
                return f"{view.type} is edge-optimized by default (no `endpointConfiguration.types`" + \
                    (f"; `{edge_inputs[0]}` is an edge certificate" if edge_inputs else "") + \
                    "): served through CloudFront"
    if view.package == "gcp" and truthy(lookup(view.props, "enableCdn")):
        return f"{view.type} has Cloud CDN enabled"
    # "Transfer Acceleration takes advantage of the globally distributed edge locations in Amazon CloudFront"
    # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/transfer-acceleration.html).
    if view.type in ("aws:s3/bucketAccelerateConfigurationV2:BucketAccelerateConfigurationV2",
                     "aws:s3/bucketAccelerateConfiguration:BucketAccelerateConfiguration") \
            and lookup(view.props, "status") == "Enabled":
        return f"{view.type} turns on Transfer Acceleration, which routes through CloudFront's edge locations"
    return None


@rule(id="SAHAB-CLOUD-003", name="cloud-all-resource-edge-service-forbidden",
      title="No global edge service (CDN, Front Door, Global Accelerator)",
      description="CloudFront, Global Accelerator, Azure CDN and Front Door, Cloud CDN, third-party CDNs, and the "
                  "services that are edge-fronted by default (API Gateway REST APIs and domain names without a "
                  "REGIONAL or PRIVATE endpoint type, Amplify Hosting, Cognito hosted-UI domains, Azure Static Web "
                  "Apps, S3 Transfer Acceleration) cache or route data through points of presence worldwide, "
                  "outside the UAE. They are mandatory violations unless a reviewed waiver names the resource.",
      remediation="Serve from the regional endpoint in the UAE (an ALB, API Management or Application Gateway in "
                  "me-central-1/uaenorth); if a public edge is unavoidable for non-personal data, waive that "
                  "resource for at most 90 days.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def cloud_edge_service(ctx: Context):
    for view in ctx.resources:
        if view.type.startswith("pulumi:providers:") or (not in_scope(view) and view.package not in EDGE_PACKAGES):
            continue
        reason = edge_service(view)
        if reason:
            yield Finding(f"{reason}: its points of presence copy data outside the UAE", view.urn)
