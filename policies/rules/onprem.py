"""On-prem residency: every site's declared location is in an allowed country.

Sites are declared in the stack config (`sahab:fleet.sites[*].country`, ISO 3166, default AE) and by the
on-prem components (`sahab:onprem:*` resources whose inputs carry `country`)."""

from __future__ import annotations

from ..core import (
    Context,
    Enforcement,
    Finding,
    Severity,
    Unknown,
    health_data,
    iso27001,
    pdpl,
    rule,
)
from ..residency import describe_place, place_allowed, site_places


@rule(id="SAHAB-ONPREM-001", name="onprem-site-country-allowed",
      title="On-prem sites are in the UAE",
      description="Every on-prem site that hosts fleet nodes declares a location in an allowed country (the "
                  "UAE by default), in the stack config and in the on-prem components.",
      remediation="Remove the site from `sahab:fleet.sites` or move its hosts to a data centre in the UAE "
                  "(`country: AE`).",
      severity=Severity.CRITICAL, frameworks=(pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"),
                                              iso27001("A.7.1")),
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def onprem_site_country(ctx: Context):
    for what, urn, place in site_places(ctx):
        if not place_allowed(place, ctx):
            yield Finding(f"{what}: its country is {describe_place(place)}, outside the allowed countries "
                          f"({', '.join(ctx.allowed_countries)})", urn)
