"""A free TCP port for a server the tests start a moment later (a registry, an sshd, a rendezvous store, ranks' TCP
init): free now, and below the kernel's ephemeral range. A port the kernel hands out itself (bind to 0) lies in that
range, where any process's outgoing connection may take it before the server binds it (EADDRINUSE, and whoever
waits for the server waits out its timeout); the kernel never hands out a port below the range by itself."""

from __future__ import annotations

import random
import socket
from pathlib import Path

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
CANDIDATES = 12000  # ports below the range to draw from (random, so two callers rarely draw the same one)


def free_port(address: str = "127.0.0.1") -> int:
    low = int(EPHEMERAL_RANGE.read_text().split()[0]) if EPHEMERAL_RANGE.is_file() else 32768
    for port in random.sample(range(max(1024, low - CANDIDATES), low), 200):
        with socket.socket() as s:
            try:
                s.bind((address, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port on {address} below the ephemeral range")
