"""Reading a Pulumi project and a stack's config the way the Pulumi CLI does, without the CLI."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sahab.errors import ConfigError, UsageError
from sahab.yamlfile import load_json_yaml

REDACTED = "[secret]"
TOOLCHAINS = ("pip", "poetry", "uv")  # what the Pulumi CLI's Python host accepts (sdk/python/toolchain)


@dataclass(frozen=True)
class Project:
    name: str
    root: Path  # the folder holding Pulumi.yaml
    main: Path  # the program's folder (or file)
    stack_config_dir: Path
    config: dict[str, Any] = field(default_factory=dict)  # Pulumi.yaml `config:` (project-level settings)
    virtualenv: str | None = None  # Pulumi.yaml `runtime.options.virtualenv`
    toolchain: str | None = None  # Pulumi.yaml `runtime.options.toolchain`: pip, poetry or uv (None: detected)

    @property
    def main_dir(self) -> Path:
        """The program's folder: `main` itself, or the folder of a `main` file."""
        return self.main if self.main.is_dir() else self.main.parent


@dataclass(frozen=True)
class StackConfig:
    """A stack's config as the engine hands it to a program: `ns:key` -> string (JSON for structured values)."""

    name: str
    path: Path
    values: dict[str, str]
    secret_keys: frozenset[str]
    # Structured values, with every `secure:` leaf replaced by REDACTED (safe to print).
    redacted: dict[str, object] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # e.g. a credential stored in plaintext
    # The text of every secret setting (a `secure:` ciphertext, a credential stored in plaintext), which no plan,
    # report or error line prints: `scrub` replaces it by REDACTED wherever a program copied it.
    secret_texts: frozenset[str] = frozenset()


def project_dir(program: str | Path | None) -> Path:
    """The project `--program` names, else the nearest folder holding a Pulumi.yaml from the current folder up,
    as the Pulumi CLI finds its project."""
    if program is not None:
        return Path(program)
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file() or (folder / "Pulumi.yml").is_file():
            return folder
    raise UsageError(f"no Pulumi.yaml in {here} or any folder above it; run inside a Pulumi project or name one "
                     f"with --program DIR")


def find_project(program_dir: Path) -> Project:
    program_dir = Path(program_dir).resolve()
    for name in ("Pulumi.yaml", "Pulumi.yml"):
        file = program_dir / name
        if file.is_file():
            break
    else:
        raise UsageError(f"--program {program_dir}: no Pulumi.yaml there; point --program at a Pulumi project")
    try:
        doc = load_json_yaml(file, "project file") or {}
    except yaml.YAMLError as exc:
        raise ConfigError(str(file), f"not valid YAML: {_yaml_problem(exc)}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise ConfigError(f"{file}: name", "a Pulumi project needs a string `name`")
    runtime = doc.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise ConfigError(f"{file}: runtime", f"sahab plans Python programs only; got {runtime_name!r}")
    main = (program_dir / str(doc.get("main", "."))).resolve()
    stack_dir = (program_dir / str(doc.get("stackConfigDir", "."))).resolve()
    config = doc.get("config") or {}
    if not isinstance(config, dict):
        raise ConfigError(f"{file}: config", "must be a mapping of settings")
    options = runtime.get("options") if isinstance(runtime, dict) else None
    venv = options.get("virtualenv") if isinstance(options, dict) else None
    toolchain = options.get("toolchain") if isinstance(options, dict) else None
    if toolchain is not None and toolchain not in TOOLCHAINS:
        raise ConfigError(f"{file}: runtime.options.toolchain", f"{toolchain!r}; allowed: {', '.join(TOOLCHAINS)}")
    return Project(name=doc["name"], root=program_dir, main=main, stack_config_dir=stack_dir, config=config,
                   virtualenv=str(venv) if venv else None, toolchain=toolchain)


def program_virtualenv(project: Project) -> Path | None:
    """The virtualenv Pulumi.yaml names for the program (relative to the project folder), if any."""
    if not project.virtualenv:
        return None
    return (project.root / project.virtualenv).resolve()


def program_entry(project: Project) -> Path:
    entry = project.main if project.main.is_file() else project.main / "__main__.py"
    if not entry.is_file():
        raise ConfigError(f"{project.root / 'Pulumi.yaml'}: main", f"no program at {entry}")
    return entry


def load_stack(project: Project, stack: str) -> StackConfig:
    path = project.stack_config_dir / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        present = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml")
                         for p in project.stack_config_dir.glob("Pulumi.*.yaml"))
        raise UsageError(f"--stack {stack}: no {path.name} in {project.stack_config_dir}; "
                         f"stacks there: {', '.join(present) or 'none'}")
    try:
        doc = load_json_yaml(path, "stack file") or {}
    except yaml.YAMLError as exc:
        raise ConfigError(str(path), f"not valid YAML: {_yaml_problem(exc)}") from None
    if not isinstance(doc, dict):
        raise ConfigError(str(path), "a stack file must be a mapping with a `config` key")
    raw = doc.get("config") or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: config", "must be a mapping of `namespace:key: value`")
    values: dict[str, str] = {}
    secrets: set[str] = set()
    redacted: dict[str, object] = {}
    warnings: list[str] = []
    texts: set[str] = set()
    # Project-level settings first (Pulumi.yaml `config:`), then the stack's own, which win.
    for key, value, secret in [*_project_settings(project), *((k, v, False) for k, v in raw.items())]:
        full = key if ":" in str(key) else f"{project.name}:{key}"
        has_secret, shown = _redact(value)
        if not has_secret and (secret or plaintext_credential(full)) and value not in (None, ""):
            has_secret, shown = True, REDACTED
            if not secret:
                warnings.append(f"{path}: {full} holds a credential in plaintext; it is treated as a secret and "
                                f"never printed, but it is readable in the file: store it with "
                                f"`pulumi config set --secret {full}`")
        secrets.discard(full)
        if has_secret:
            secrets.add(full)
            texts.update(_secret_leaves(value, whole=shown == REDACTED))
        redacted[full] = shown
        values[full] = _as_engine_value(value)
    return StackConfig(stack, path, values, frozenset(secrets), redacted, tuple(warnings), frozenset(texts))


def _secret_leaves(value: object, whole: bool) -> list[str]:
    """The texts of a secret setting: each `secure:` ciphertext, and with `whole` (the setting is a secret as a
    whole: a plaintext credential, a `secret: true` project setting) every scalar in it."""
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return [str(value["secure"])]
        return [t for v in value.values() for t in _secret_leaves(v, whole)]
    if isinstance(value, list):
        return [t for v in value for t in _secret_leaves(v, whole)]
    if whole and value not in (None, "") and not isinstance(value, bool):
        return [str(value)]
    return []


# A secret text shorter than this is replaced only where a whole string is that text: inside longer text it would
# blank out unrelated words (and a credential that short guards nothing).
_SCRUB_WITHIN = 4


def scrub(value: Any, secrets: frozenset[str] | set[str]) -> Any:
    """`value` (text, or JSON-like data) with every secret text in it replaced by REDACTED: the one way a plan,
    a report or an error line keeps the promise that a secret setting is never printed."""
    if not secrets:
        return value
    if isinstance(value, str):
        if value in secrets:
            return REDACTED
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= _SCRUB_WITHIN and secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub(v, secrets) for v in value)
    return value


# Config keys that hold credentials: a plaintext value there is redacted and flagged, never printed.
_CREDENTIAL_KEYS = frozenset({"aws:accesskey", "aws:secretkey", "aws:token", "azure-native:clientsecret",
                              "azure-native:clientcertificatepassword"})
_CREDENTIAL_WORDS = re.compile(r"password|passwd|secret|token|privatekey|private_key|apikey|api_key|accesskey",
                               re.IGNORECASE)


def plaintext_credential(key: str) -> bool:
    """Whether config key `ns:name` names a credential (aws:secretKey, a `*password*`, `*token*` ...)."""
    name = key.partition(":")[2]
    return key.lower() in _CREDENTIAL_KEYS or bool(_CREDENTIAL_WORDS.search(name))


def _project_settings(project: Project) -> list[tuple[str, object, bool]]:
    """Pulumi.yaml `config:`: `key: value`, or `key: {value|default: ..., type, secret, description}`."""
    out = []
    for key, spec in project.config.items():
        if isinstance(spec, dict) and ({"type", "default", "value", "description", "secret", "items"} & set(spec)):
            if "value" in spec:
                value = spec["value"]
            elif "default" in spec:
                value = spec["default"]
            else:
                continue  # declared without a value: the stack must set it, as `pulumi config` requires
            out.append((str(key), value, bool(spec.get("secret"))))
        else:
            out.append((str(key), spec, False))
    return out


def _redact(value: object) -> tuple[bool, object]:
    """Replace every `{secure: ...}` leaf by REDACTED; say whether there was one."""
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return True, REDACTED
        found, out = False, {}
        for k, v in value.items():
            s, out[k] = _redact(v)
            found |= s
        return found, out
    if isinstance(value, list):
        found, out = False, []
        for v in value:
            s, shown = _redact(v)
            found |= s
            out.append(shown)
        return found, out
    return False, value


def _as_engine_value(value: object) -> str:
    """The CLI passes strings as-is and structured values as JSON. Ciphertext cannot be decrypted offline,
    so a secure value stays a (secret-marked) opaque string."""
    if isinstance(value, dict) and set(value) == {"secure"}:
        return str(value["secure"])
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(_strip_secure(value), separators=(",", ":"), ensure_ascii=False)  # as the CLI's Go writes it


def _strip_secure(value: object) -> object:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return str(value["secure"])
        return {k: _strip_secure(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_secure(v) for v in value]
    return value


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark else str(problem)
