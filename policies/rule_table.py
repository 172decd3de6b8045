"""The rule catalog as a Markdown table, for policies/README.md: `python -m policies.rule_table`."""

from __future__ import annotations

from .core import all_rules


def markdown_table() -> str:
    lines = ["| id | name | default | severity | what must be true | frameworks |", "|---|---|---|---|---|---|"]
    for r in all_rules():
        frameworks = "; ".join(f"{f.name.split(' (')[0]} {f.reference}" for f in r.frameworks)
        lines.append(f"| {r.id} | `{r.name}` | {r.enforcement.value} | {r.severity.value} | {r.title} | "
                     f"{frameworks} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
