"""The stack file `sahab init` writes: the proposal as `sahab:fleet`, with a comment on each choice.

Deterministic: only facts that stay the same while the servers do (OS, CPU, memory, disks, host keys) and the
choices reach the file; nothing volatile (free space, clock state, the time) does. The same servers and the same
choices give the same bytes.
"""

from __future__ import annotations

import re

from sahab.starter.propose import Proposal, hardware_of, size_text

_PLAIN = re.compile(r"^[A-Za-z0-9/][A-Za-z0-9/._:@+=-]*( [A-Za-z0-9+/=]+)?$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"}


def scalar(value) -> str:
    """A YAML scalar: plain where it is unambiguous text, else double-quoted (JSON quoting is YAML's)."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED and not re.fullmatch(r"[0-9.:+-]+", text):
        return text
    return json.dumps(text)


def comment(text: str) -> str:
    """Text safe inside a `# ...` comment: printable, one line."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def _line(indent: int, body: str, why: str = "") -> str:
    line = " " * indent + body
    return f"{line}  # {comment(why)}" if why else line


def render(p: Proposal) -> str:
    c = p.choices
    out = [
        f"# The {c.name} stack, written by `sahab init` from what its servers answered: the same servers and",
        "# choices give this file byte for byte. Each choice says why; change one with its `sahab init` flag",
        f"# (--force keeps a backup) or here, then run `sahab plan --stack {c.name}`.",
        "config:",
        "  sahab:fleet:",
        _line(4, f"name: {scalar(c.name)}", "prefix of every resource name"),
        _line(4, "environment: smb", "the small-business starter: the control plane may train, smallest footprint"),
    ]
    if c.registry_mirror:
        out += [_line(4, "registries:"),
                _line(6, f"onprem: {{host: {scalar(c.registry_mirror)}}}",
                      "the site's registry mirror: every node pulls every image and chart through it")]
    else:
        out.append("    # no registry mirror: nodes pull from the upstream registries "
                   "(sahab init --registry-mirror HOST:PORT names one)")
    out += [
        "    sites:",
        f"      - name: {scalar(p.site)}",
        _line(8, f"emirate: {scalar(c.emirate)}", "where the servers stand: the residency evidence"),
        _line(8, f"city: {scalar(c.city)}"),
        _line(8, "airgapped: false", "the hosts install from their own package sources and the vendors'"),
        _line(8, f"ssh_user: {scalar(c.user)}", "the account sahab init logged in as: passwordless sudo on every host"),
        "        hosts:",
    ]
    trains = {h for pool in p.pools for h in pool.hosts}
    for plan in p.hosts:
        f = plan.facts
        gpus = f.nvidia_gpus
        gpu_text = f"; {len(gpus)} x {gpus[0].name or 'NVIDIA ' + gpus[0].device}" if gpus else ""
        addresses = f"; answers on {', '.join(f.addresses[:4])}" if f.addresses else ""
        out.append(_line(10, f"# {f.os_name or f.os_id}, {f.arch}; {f.cpu_model} ({f.cpu_class}){gpu_text}"
                         f"{addresses}"))
        out.append(f"          - name: {scalar(plan.name)}")
        out.append(_line(12, f"address: {scalar(f.address)}", "where Ansible connects"))
        if f.port != 22:
            out.append(_line(12, f"port: {f.port}"))
        out.append(_line(12, f"cpus: {f.cpus}", "logical CPUs, as the server counts them"))
        out.append(_line(12, f"memory_gib: {f.memory_gib}", "MemTotal in whole GiB"))
        accelerator, _, count = hardware_of(plan)
        if count and accelerator:  # a pool of these GPUs is accepted only on hosts that declare them
            out.append(_line(12, f"gpus: {{accelerator: {accelerator}, count: {count}}}",
                             "the NVIDIA GPUs the probe found"))
        if plan.data_disk:
            d = plan.data_disk
            out.append(_line(12, f"data_disk: {scalar(d.stable_id or d.path)}",
                             f"{d.path}, unused {size_text(d.size_bytes)} {d.model}: LUKS2-formatted on first use, "
                             "its contents erased; the encrypted volumes of the pods here live on it"))
        elif plan.name in trains:
            out.append("            # no data_disk: pods here get no encrypted volume (--no-encryption)")
        else:
            out.append("            # no data_disk: the control plane does not train, so it keeps no volumes")
        if plan.host_keys:
            out.append(_line(12, "ssh_host_keys:", "its host keys as trusted on first contact; Ansible trusts "
                                                   "only these"))
            out += [f"              - {scalar(key)}" for key in plan.host_keys]
    cp = p.control_plane
    out += [
        "    clusters:",
        _line(6, f"- name: {scalar(p.site)}", "one Kubernetes cluster (kubeadm) on the site's servers"),
        "        kind: onprem",
        f"        site: {scalar(p.site)}",
        _line(8, f"control_plane_hosts: [{scalar(cp.name)}]", "the first host runs the control plane"),
        _line(8, f"schedule_on_control_plane: {scalar(c.control_plane_trains)}",
              "it also trains: a small site loses no server to Kubernetes itself" if c.control_plane_trains
              else "it only runs Kubernetes (--control-plane-trains no)"),
        "    node_pools:",
    ]
    for pool in p.pools:
        why = (f"{len(pool.hosts)} host(s) with {pool.gpus_per_node} {pool.accelerator} GPU(s) each"
               if pool.gpus_per_node else f"the {pool.hardware_class} hosts: one training gang, one precision")
        out += [
            _line(6, f"- name: {scalar(pool.name)}", why),
            f"        cluster: {scalar(p.site)}",
            f"        accelerator: {scalar(pool.accelerator)}",
            f"        hosts: [{', '.join(scalar(h) for h in pool.hosts)}]",
        ]
        if pool.gpus_per_node:
            out.append(f"        gpus_per_node: {pool.gpus_per_node}")
    out += [
        "    monitoring:",
        _line(6, "retention: 7d", "a week of metrics on a small volume: the starter's footprint"),
        "      storage_size_gb: 10",
        "    workload:",
        _line(6, f"enabled: {scalar(p.training)}",
              "train on every pool once each node passes its benchmark" if p.training
              else f"the platform only: {p.training_note}"),
        "      steps: 200",
        "      teams:",
        _line(8, f"- name: {scalar(c.team)}", "one team; its quotas are what the pools hold after the kubelet's "
                                              "reservations"),
        f"          gpu_quota: {p.gpu_quota}",
        f"          cpu_quota: {p.cpu_quota}",
        f"          memory_quota_gi: {p.memory_quota_gi}",
    ]
    return "\n".join(out) + "\n"
