"""Azure naming and storage redundancy rules: pure functions, no Pulumi.

Key Vault and storage account names are global across Azure, short, and (storage) letters and digits only.
Sahab derives them from readable parts plus a short stable hash of the parts, so a stack always gets the
same names and two stacks or fleets do not collide.
"""

from __future__ import annotations

import hashlib
import re

# Azure region pairs (geo-redundant storage replicates to the pair, chosen by Azure, not by us).
REGION_PAIRS = {"uaenorth": "uaecentral", "uaecentral": "uaenorth"}
# The availability zones of each location that has them, as the zone numbers Azure's APIs take (an AKS agent pool's
# availabilityZones, a public IP's zones): logical zones 1 to 3 of the subscription ("What are availability zones?",
# Microsoft Learn; UAE North has three). UAE Central has none. Zone-redundant storage needs them.
LOCATION_ZONES: dict[str, tuple[str, ...]] = {"uaenorth": ("1", "2", "3")}
ZONAL_LOCATIONS = frozenset(LOCATION_ZONES)


def _hash(parts: tuple[str, ...], n: int) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def key_vault_name(prefix: str, *unique_parts: str) -> str:
    """3-24 characters, letters/digits/hyphens, starting with a letter, no double hyphens."""
    stem = re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "", prefix.lower())).strip("-")
    stem = stem if stem[:1].isalpha() else f"kv{stem}"
    suffix = _hash((prefix, *unique_parts), 8)
    return f"{stem[:24 - len(suffix) - 1].rstrip('-')}-{suffix}"


def storage_account_name(prefix: str, *unique_parts: str) -> str:
    """3-24 lower-case letters and digits."""
    stem = re.sub(r"[^a-z0-9]", "", prefix.lower())
    suffix = _hash((prefix, *unique_parts), 8)
    return f"{stem[:24 - len(suffix)]}{suffix}"


def storage_sku(location: str, geo_redundant: bool, allowed_locations: tuple[str, ...]) -> str:
    """Zone-redundant where the location has zones; geo-redundant only when Azure's pair stays allowed."""
    zonal = location in ZONAL_LOCATIONS
    if not geo_redundant:
        return "Standard_ZRS" if zonal else "Standard_LRS"
    pair = REGION_PAIRS.get(location)
    if pair is None or pair not in allowed_locations:
        raise ValueError(f"geo-redundant storage in {location} would replicate to {pair or 'an unknown pair'}, "
                         f"outside the residency list ({', '.join(allowed_locations)})")
    return "Standard_GZRS" if zonal else "Standard_GRS"
