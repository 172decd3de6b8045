"""Every on-prem server of the stack, as Ansible will reach it: SSH as the site's user with the host keys the
runner trusts, and passwordless sudo (the roles `become` root)."""

from __future__ import annotations

from collections.abc import Iterator

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext
from sahab.doctor._hosts import answers

AREA = "ssh"
KEY_SETTING = "sahab:{}"


def checks(ctx: DoctorContext) -> Iterator[Check]:
    sites = {s.name: s for s in getattr(ctx.fleet, "sites", ()) or ()}
    keyed = [s.ssh_private_key_secret for s in sites.values() if KEY_SETTING.format(s.ssh_private_key_secret)
             in ctx.config]
    via = (f"your ssh-agent (pulumi up uses the stack's {', '.join(sorted(set(keyed)))}: load the same key)"
           if keyed else "your ssh-agent and keys, as pulumi up will")
    found = answers(ctx)
    if not found:
        yield Check(AREA, "hosts", SKIP, "the stack has no on-prem servers")
    for answer in found:
        name = f"{answer.name} ({answer.where})"
        if answer.error:
            yield Check(AREA, name, FAIL, answer.error, "fix the login before pulumi up: Ansible logs in the same way")
        elif not answer.sudo:
            yield Check(AREA, name, FAIL, "logs in, but has no passwordless sudo",
                        "add `<user> ALL=(ALL:ALL) NOPASSWD: ALL` in /etc/sudoers.d/ on the host")
        else:
            yield Check(AREA, name, OK, f"logs in with {via}; passwordless sudo")
