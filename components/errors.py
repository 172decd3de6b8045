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


class ConfigErrors(ConfigError):
    """Several problems of one configuration at once, each at its config path; `path` and `message` are the
    first's. Shown on one line, the first as a lone problem would be:
    `<path>: <message> (problem 1 of 2); <path>: <message> (problem 2 of 2)`."""

    def __init__(self, problems: list[ConfigError]):
        self.problems = tuple(problems)
        self.path, self.message = problems[0].path, problems[0].message
        n = len(self.problems)
        SahabError.__init__(self, "; ".join(f"{p} (problem {i} of {n})" for i, p in enumerate(self.problems, 1)))

    @staticmethod
    def of(problems: list[ConfigError]) -> ConfigError:
        """The one problem itself, or several together (an empty list is no error: a caller's bug)."""
        if not problems:
            raise ValueError("no problems to report")
        return problems[0] if len(problems) == 1 else ConfigErrors(problems)
