"""Errors raised by the fleet schema and the components: the CLI turns them into exit code 2 with one `error:` line."""

from __future__ import annotations


class SahabError(Exception):
    """A problem the user can fix: bad input, config or program. Exit code 2."""

    exit_code = 2


class ConfigError(SahabError):
    """Invalid configuration. `path` names the config location, e.g. `sahab:fleet.node_pools[2].max_size`."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)
