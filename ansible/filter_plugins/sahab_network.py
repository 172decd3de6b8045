"""Jinja filters for the host firewall: the sources allowed to reach a node's cluster ports.

`sahab_firewall_sources` turns addresses and networks (IPv4 and IPv6 alike) into nftables sets per family:
a bare address becomes its /32 or /128, a network stays as it is. Anything else fails the host, naming the
value: a firewall must never be written from a value it did not understand.
"""

from __future__ import annotations

import ipaddress

from ansible.errors import AnsibleFilterError


def firewall_sources(values: list) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"ipv4": [], "ipv6": []}
    for value in values or []:
        try:
            network = ipaddress.ip_network(str(value).strip(), strict=False)
        except ValueError:
            raise AnsibleFilterError(f"firewall source {value!r} is not an IP address or network") from None
        family = "ipv4" if network.version == 4 else "ipv6"
        if str(network) not in out[family]:
            out[family].append(str(network))
    return out


def address_within(address: str, networks: list) -> bool:
    """Whether an address lies inside one of the networks."""
    ip = ipaddress.ip_address(str(address))
    return any(ip in ipaddress.ip_network(str(n), strict=False) for n in networks or [])


class FilterModule:
    def filters(self):
        return {"sahab_firewall_sources": firewall_sources, "sahab_address_within": address_within}
