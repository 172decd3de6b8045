"""`sahab completion bash|zsh|fish`: a shell completion script for every command, option and option value.

Everything comes from the very parser `sahab` uses: commands, their options and the fixed values an option takes
(`--format text|json|sarif|junit`). Stack names cannot be fixed in a script: they are the `Pulumi.<stack>.yaml`
files of the project being worked on, so the script asks `sahab completion --list-stacks [--program DIR]` at
the moment of completion (the project named by --program on the line, else the nearest Pulumi.yaml from the
current folder up)."""

from __future__ import annotations

import argparse

HELP = "Print a shell completion script: eval \"$(sahab completion bash)\" (or zsh, fish)."
STACK_OPTIONS = ("--stack", "-s")  # their values are the project's stacks, read when completing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", nargs="?", choices=("bash", "zsh", "fish"), help="the shell to complete in")
    parser.add_argument("--list-stacks", action="store_true",
                        help="print the stacks of the project (one per line) and exit: what the scripts complete "
                             "--stack with")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="with --list-stacks: the project folder (default: the nearest Pulumi.yaml from the "
                             "current folder up)")


def _commands() -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Each command's words to complete (options, fixed positional values) and each option's fixed values."""
    from sahab.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, tuple[list[str], dict[str, list[str]]]] = {}
    for name, command in sub.choices.items():
        words: list[str] = []
        values: dict[str, list[str]] = {}
        for action in command.load()._actions:  # a command's arguments are added on first use (sahab/cli.py)
            words.extend(o for o in action.option_strings if o.startswith("--"))
            if not action.option_strings and action.choices:
                words.extend(str(c) for c in action.choices)
            elif action.option_strings and action.choices:
                for option in action.option_strings:
                    values[option] = [str(c) for c in action.choices]
        found[name] = (words, values)
    return found


def stacks(program: str | None) -> list[str]:
    """The stack names of a project: `Pulumi.<stack>.yaml` in its stackConfigDir; none when there is no project."""
    from pathlib import Path

    from sahab.errors import SahabError
    from sahab.project import find_project

    start = Path(program) if program else Path.cwd()
    folders = [start] if program else [start, *start.parents]
    for folder in folders:
        if (folder / "Pulumi.yaml").is_file() or (folder / "Pulumi.yml").is_file():
            try:
                config_dir = find_project(folder).stack_config_dir
            except SahabError:  # a broken project completes nothing; the command itself will say why
                return []
            return sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml")
                          for p in config_dir.glob("Pulumi.*.yaml"))
    return []


def bash_script(commands: dict[str, tuple[list[str], dict[str, list[str]]]]) -> str:
    cases = "\n".join(f'            {name}) words="{" ".join(words)}" ;;' for name, (words, _) in commands.items())
    value_cases = "\n".join(f'        "{name} {option}") words="{" ".join(choices)}" ;;'
                            for name, (_, values) in commands.items() for option, choices in values.items())
    stack_cases = "|".join(f'"{name} {option}"' for name, (words, _) in commands.items()
                           for option in STACK_OPTIONS if "--stack" in words)
    return f"""# sahab completion for bash (and zsh through bashcompinit)
_sahab_stacks() {{
    local i program=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [ "${{COMP_WORDS[i]}}" = "--program" ]; then program=(--program "${{COMP_WORDS[i+1]}}"); fi
    done
    command sahab completion --list-stacks "${{program[@]}}" 2>/dev/null
}}
_sahab() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" words
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{" ".join(commands)} --help --version --no-color" -- "$cur"))
        return
    fi
    # An option's value (a fixed choice, a stack of the project), else the command's options.
    case "${{COMP_WORDS[1]}} $prev" in
{value_cases}
        {stack_cases}) words="$(_sahab_stacks)" ;;
        *) case "${{COMP_WORDS[1]}}" in
{cases}
            *) words="" ;;
           esac ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _sahab sahab
"""


def fish_script(commands: dict[str, tuple[list[str], dict[str, list[str]]]]) -> str:
    lines = ["# sahab completion for fish", "complete -c sahab -f"]
    names = " ".join(commands)
    lines.append(f'complete -c sahab -n "not __fish_seen_subcommand_from {names}" -a "{names}"')
    for name, (words, values) in commands.items():
        seen = f'-n "__fish_seen_subcommand_from {name}"'
        for word in words:
            if word in STACK_OPTIONS:
                lines.append(f"complete -c sahab {seen} -l stack -s s -x -a '(sahab completion --list-stacks)'")
            elif word in values:
                lines.append(f'complete -c sahab {seen} -l {word[2:]} -x -a "{" ".join(values[word])}"')
            elif word.startswith("--"):
                lines.append(f"complete -c sahab {seen} -l {word[2:]}")
            else:
                lines.append(f'complete -c sahab {seen} -a "{word}"')
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    import sys

    from sahab.errors import UsageError

    if args.list_stacks:
        for name in stacks(args.program):
            print(name)
        return 0
    if args.shell is None:
        raise UsageError("sahab completion: name the shell; allowed: bash, zsh, fish")
    commands = _commands()
    if args.shell == "fish":
        sys.stdout.write(fish_script(commands))
    else:
        prefix = "autoload -U +X bashcompinit && bashcompinit\n" if args.shell == "zsh" else ""
        sys.stdout.write(prefix + bash_script(commands))
    return 0
