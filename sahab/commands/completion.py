"""`sahab completion bash|zsh|fish`: a shell completion script for every command and option, from the parser."""

from __future__ import annotations

import argparse

HELP = "Print a shell completion script: eval \"$(sahab completion bash)\" (or zsh, fish)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell to complete in")


def _commands() -> dict[str, list[str]]:
    """Each command's options (and fixed choices), read from the very parser `sahab` uses."""
    from sahab.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, list[str]] = {}
    for name, command in sub.choices.items():
        words: list[str] = []
        for action in command._actions:
            words.extend(o for o in action.option_strings if o.startswith("--"))
            if not action.option_strings and action.choices:
                words.extend(str(c) for c in action.choices)
        found[name] = words
    return found


def bash_script(commands: dict[str, list[str]]) -> str:
    cases = "\n".join(f'        {name}) words="{" ".join(words)}" ;;' for name, words in commands.items())
    return f"""# sahab completion for bash (and zsh through bashcompinit)
_sahab() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" words
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{" ".join(commands)} --help" -- "$cur"))
        return
    fi
    case "${{COMP_WORDS[1]}}" in
{cases}
        *) words="" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _sahab sahab
"""


def fish_script(commands: dict[str, list[str]]) -> str:
    lines = ["# sahab completion for fish", "complete -c sahab -f"]
    names = " ".join(commands)
    lines.append(f'complete -c sahab -n "not __fish_seen_subcommand_from {names}" -a "{names}"')
    for name, words in commands.items():
        for word in words:
            arg = f"-l {word[2:]}" if word.startswith("--") else f'-a "{word}"'
            lines.append(f"complete -c sahab -n \"__fish_seen_subcommand_from {name}\" {arg}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    import sys

    commands = _commands()
    if args.shell == "fish":
        sys.stdout.write(fish_script(commands))
    else:
        prefix = "autoload -U +X bashcompinit && bashcompinit\n" if args.shell == "zsh" else ""
        sys.stdout.write(prefix + bash_script(commands))
    return 0
