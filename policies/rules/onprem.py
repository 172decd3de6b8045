"""On-prem residency: every site's declared location is in an allowed country.

Sites are declared in the stack config (`sahab:fleet.sites[*].country`, ISO 3166, default AE) and by the
on-prem components (`sahab:onprem:*` resources whose inputs carry `country`)."""

from __future__ import annotations

from policies.core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    Severity,
    health_data,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
)

FLEET_KEY = "sahab:fleet"
FLEET_DEFAULT_COUNTRY = "AE"  # components/config.py Site.country default


def _country_problem(country, ctx: Context, what: str) -> str | None:
    if country is UNKNOWN:
        return f"{what}: country unknown during preview; residency fails closed"
    if not isinstance(country, str):
        return f"{what}: country is {country!r}, not an ISO 3166 code"
    if country.upper() in {c.upper() for c in ctx.allowed_countries}:
        return None
    return f"{what}: country {country!r} is outside the allowed countries ({', '.join(ctx.allowed_countries)})"


@rule(id="SAHAB-ONPREM-001", name="onprem-site-country-allowed",
      title="On-prem sites are in the UAE",
      description="Every on-prem site that hosts fleet nodes declares a location in an allowed country (the "
                  "UAE by default), in the stack config and in the on-prem components.",
      remediation="Remove the site from `sahab:fleet.sites` or move its hosts to a data centre in the UAE "
                  "(`country: AE`).",
      severity=Severity.CRITICAL, frameworks=(pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"),
                                              iso27001("A.7.1")),
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
def onprem_site_country(ctx: Context):
    fleet = ctx.stack_config.get(FLEET_KEY)
    if isinstance(fleet, dict):
        for i, site in enumerate(items(fleet, "sites")):
            country = lookup(site, "country")
            name = lookup(site, "name")
            problem = _country_problem(FLEET_DEFAULT_COUNTRY if country is MISSING else country, ctx,
                                       f"{FLEET_KEY}.sites[{i}] ({name if isinstance(name, str) else '?'})")
            if problem:
                yield Finding(problem)
    for res in ctx.resources:
        if not res.type.startswith("sahab:onprem:"):
            continue
        for path in (("country",), ("site", "country"), ("location", "country")):
            country = lookup(res.props, *path)
            if country is not MISSING:
                problem = _country_problem(country, ctx, f"{res.type} {res.name!r}")
                if problem:
                    yield Finding(problem, res.urn)
