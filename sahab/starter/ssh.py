"""How Sahab's own SSH connections are made: the way the Ansible runner makes them, with the host key options of
components/onprem/runner.py (`host_key_options`: one definition for both).

Host keys are always verified. A key is trusted on first use only when the caller says so (`accept_new`), and
then ssh writes it into the first known_hosts file given, which the caller records (in the stack: each host's
`ssh_host_keys`). The operator's own known_hosts files are read, never written.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sahab.components.onprem.runner import host_key_options

# ssh's defaults for UserKnownHostsFile (ssh_config(5)), under the account's home directory as ssh finds it.
_USER_KNOWN_HOSTS = (".ssh/known_hosts", ".ssh/known_hosts2")


def user_known_hosts() -> tuple[Path, ...]:
    """The operator's known_hosts files: ssh takes the home directory from the password database, not $HOME."""
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    return tuple(home / name for name in _USER_KNOWN_HOSTS)


def known_hosts_name(address: str, port: int) -> str:
    """How known_hosts names a host: the address, or `[address]:port` off port 22."""
    return address if port == 22 else f"[{address}]:{port}"


@dataclass(frozen=True)
class SshTarget:
    """One server as Sahab logs in to it."""

    address: str
    port: int = 22
    user: str = "sahab"
    identity: str | None = None  # a private key file; None: the operator's ssh-agent and default keys
    known_hosts: tuple[Path, ...] = ()  # checked in order; with accept_new, a new key goes into the first
    accept_new: bool = False
    connect_timeout: int = 10

    def argv(self, *remote: str) -> list[str]:
        files = self.known_hosts or user_known_hosts()
        opts = [
            "BatchMode=yes",  # never a password or passphrase prompt: init and doctor run unattended
            f"ConnectTimeout={self.connect_timeout}",
            # these files alone (never the global ones), UpdateHostKeys=no: exactly the key the host was trusted with
            *host_key_options([str(f) for f in files], accept_new=self.accept_new),
            "ServerAliveInterval=5",  # a host that goes silent halfway is given up on, not waited for
            "ServerAliveCountMax=3",
            "LogLevel=ERROR",
        ]
        argv = ["ssh", "-T", "-p", str(self.port), "-l", self.user]
        for option in opts:
            argv += ["-o", option]
        if self.identity:
            argv += ["-i", self.identity, "-o", "IdentitiesOnly=yes"]
        return [*argv, "--", self.address, *remote]

    def run(self, command: str, stdin: str = "", timeout: float = 60.0) -> subprocess.CompletedProcess:
        """Run `command` with the remote account's shell; stdin is sent and closed. Raises TimeoutExpired."""
        return subprocess.run(self.argv(command), input=stdin, capture_output=True, text=True, timeout=timeout,
                              errors="replace")


def why_ssh_failed(stderr: str, rc: int) -> str:
    """ssh's reason for a failed connection in a few words, with what to do where there is one thing to do."""
    text = stderr.strip()
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in text:
        return "its SSH host key differs from the one on record: check with its administrator before you trust it"
    if "Host key verification failed" in text or "No ED25519 host key is known" in text \
            or "host key is not known" in text.lower():
        return ("its SSH host key is not on record; compare `ssh-keyscan` with the server's console, then rerun "
                "with --accept-new-host-keys to trust and record it")
    if "Permission denied" in text:
        return f"login refused ({text.splitlines()[-1]}); give --user and --identity of an account it accepts"
    last = text.splitlines()[-1] if text else f"ssh exited {rc}"
    return f"cannot reach it over SSH: {last}"


def recorded_keys(files: tuple[Path, ...], address: str, port: int) -> tuple[str, ...]:
    """The `<type> <base64>` keys the files hold for the host (hashed names too: `ssh-keygen -F` reads them),
    sorted, each once."""
    name = known_hosts_name(address, port)
    keys: set[str] = set()
    for file in files:
        if not file.is_file():
            continue
        found = subprocess.run(["ssh-keygen", "-F", name, "-f", str(file)], capture_output=True, text=True,
                               timeout=30, errors="replace")
        for line in found.stdout.splitlines():
            fields = line.split()
            if not fields or line.startswith("#") or fields[0].startswith("@"):  # @revoked, @cert-authority
                continue
            if len(fields) >= 3:
                keys.add(f"{fields[1]} {fields[2]}")
    return tuple(sorted(keys))
