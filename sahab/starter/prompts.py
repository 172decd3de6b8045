"""The person's changes to the proposal: one question per choice, the proposal's answer in brackets.

An empty answer keeps the bracketed one; the end of input (a script that stops answering, no terminal at all)
keeps it for every question left. A wrong answer is asked again, saying what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from sahab.starter.facts import HostFacts
from sahab.starter.propose import POOL_LAYOUTS, Choices, host_names, size_text

ATTEMPTS = 3


class _Ended(Exception):
    """Input ended: the rest of the choices keep their proposed answers."""


def ask(facts: Sequence[HostFacts], choices: Choices, emirates: Sequence[str], read: Callable[[str], str | None],
        write: Callable[[str], None]) -> Choices:
    """`read(prompt)` returns the answer, or None at the end of input."""

    def question(label: str, default: str | None, allowed: Callable[[str], str | None]) -> str | None:
        for _ in range(ATTEMPTS):
            answer = read(f"{label} [{default if default is not None else ''}]: ")
            if answer is None:
                raise _Ended
            answer = answer.strip() or (default or "")
            problem = allowed(answer)
            if not problem:
                return answer or None
            write(f"  {answer!r}: {problem}")
        write(f"  keeping {default!r}")
        return default

    def one_of(options: Sequence[str]) -> Callable[[str], str | None]:
        return lambda a: None if a in options else f"allowed: {', '.join(options)}"

    names = host_names(facts, choices.name)
    try:
        emirate = question("emirate the servers stand in", choices.emirate, one_of(emirates))
        choices = replace(choices, emirate=emirate)
        default_city = choices.city or (emirate.replace("-", " ").title() if emirate else None)
        choices = replace(choices, city=question("city", default_city, lambda a: None if a else "a city's name"))
        trains = question("does the first host also train (yes/no)", "yes" if choices.control_plane_trains else "no",
                          one_of(("yes", "no")))
        choices = replace(choices, control_plane_trains=trains == "yes")
        layout = question(f"pools ({', '.join(POOL_LAYOUTS)})", choices.pools, one_of(POOL_LAYOUTS))
        choices = replace(choices, pools=layout)
        disks = dict(choices.data_disks)
        for name, f in zip(names, facts, strict=True):
            offered = [d.stable_id for d in f.unused_disks if d.stable_id]
            if not offered:
                continue
            for d in f.unused_disks:
                write(f"  {name}: {d.stable_id} ({d.path}, {size_text(d.size_bytes)} {d.model})")
            current = disks.get(name) or disks.get(f.address) or offered[0]
            disks[name] = question(f"{name}: data disk for its encrypted volume (erased), or none", current,
                                   one_of([*offered, "none"]))
            disks.pop(f.address, None)
        choices = replace(choices, data_disks=disks)
        choices = replace(choices, team=question("team that trains", choices.team,
                                                 lambda a: None if a else "a team name"))
        mirror = question("registry mirror HOST[:PORT], or none", choices.registry_mirror or "none",
                          lambda a: None if a else "HOST[:PORT] or none")
        choices = replace(choices, registry_mirror=None if mirror in (None, "none") else mirror)
    except _Ended:
        write("(input ended: the remaining choices keep their proposed answers)")
    return choices
