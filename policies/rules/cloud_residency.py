"""Residency across every provider package: where any other cloud's resources sit, where every resource's
inputs point, and the global edge services that copy data to caches around the world.

The mechanism is policies/residency.py; AWS and Azure resources are judged by the same function under their
own rule ids (SAHAB-AWS-001, SAHAB-AZ-001)."""

from __future__ import annotations

from policies.core import (
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    health_data,
    iso27001,
    lookup,
    pdpl,
    rule,
    truthy,
)
from policies.residency import AWS_PACKAGES, AZURE_PACKAGES, in_scope, place_problem, reference_findings

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
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
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
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
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
EDGE_TYPES = ("aws:lightsail/distribution:Distribution",)
EDGE_PACKAGES = ("cloudflare", "fastly", "akamai")


def edge_service(view: ResourceView) -> str | None:
    """The edge service this resource belongs to, else None."""
    if view.type in EDGE_TYPES or view.package in EDGE_PACKAGES:
        return view.type
    module = view.type.split(":")[1] if view.type.count(":") >= 2 else ""
    for prefix in EDGE_MODULES.get(view.package, ()):
        if module == prefix or module.startswith(prefix + "/") or module.split("/")[0] == prefix:
            return view.type
    if view.package == "aws" and view.type.startswith("aws:wafv2/") \
            and lookup(view.props, "scope") in ("CLOUDFRONT", UNKNOWN):  # unknown: fails closed
        return view.type
    if view.package == "gcp" and truthy(lookup(view.props, "enableCdn")):
        return view.type
    return None


@rule(id="SAHAB-CLOUD-003", name="cloud-all-resource-edge-service-forbidden",
      title="No global edge service (CDN, Front Door, Global Accelerator)",
      description="CloudFront, Global Accelerator, Azure CDN and Front Door, Cloud CDN and third-party CDNs cache "
                  "or route data through points of presence worldwide, outside the UAE. They are mandatory "
                  "violations unless a reviewed waiver names the resource.",
      remediation="Serve from the regional endpoint in the UAE (an ALB, API Management or Application Gateway in "
                  "me-central-1/uaenorth); if a public edge is unavoidable for non-personal data, waive that "
                  "resource for at most 90 days.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
def cloud_edge_service(ctx: Context):
    for view in ctx.resources:
        if view.type.startswith("pulumi:providers:") or (not in_scope(view) and view.package not in EDGE_PACKAGES):
            continue
        service = edge_service(view)
        if service:
            yield Finding(f"{service} is a global edge service: its points of presence copy data outside the UAE",
                          view.urn)
