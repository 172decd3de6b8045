"""The executor awaits a program's outstanding outputs in batches (`drain_outputs_in_batches` in
sahab-language-python-exec): every output is still awaited, including those an apply body creates after the batch
was taken, and one that fails among thousands of pending ones ends the run with its own error."""

from __future__ import annotations

import textwrap

import pytest

from sahab.engine import plan
from sahab.errors import ProgramError

# Thousands of outputs pending at once, beside a chain in which each apply registers a resource and starts the next
# apply: every link exists only once the one before it has been awaited.
CHAIN = """
import pulumi
from pulumi_kubernetes.core.v1 import ConfigMap

for n in range(3000):
    pulumi.Output.from_input(n).apply(lambda v: v + 1)


def link(i):
    {body}
    ConfigMap(f"link-{{i}}", metadata={{"name": f"link-{{i}}"}}, data={{"i": str(i)}})
    if i < 40:
        pulumi.Output.from_input(i + 1).apply(link)


pulumi.Output.from_input(0).apply(link)
"""


def _program(tmp_path, body: str = "pass"):
    (tmp_path / "Pulumi.yaml").write_text("name: drain\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(textwrap.dedent(CHAIN.format(body=body)))
    return tmp_path


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_outputs_an_apply_creates_after_the_batch_was_taken_are_awaited_too(tmp_path, preview):
    planned = plan(_program(tmp_path), "dev", preview=preview)
    links = {r.name: r.inputs["data"]["i"] for r in planned.resources if r.type == "kubernetes:core/v1:ConfigMap"}
    assert links == {f"link-{i}": str(i) for i in range(41)}


def test_a_failure_deep_in_the_chain_ends_the_run_with_its_own_error(tmp_path):
    folder = _program(tmp_path, "if i == 25:\n        raise ValueError('link 25 failed')")
    with pytest.raises(ProgramError, match="ValueError: link 25 failed"):
        plan(folder, "dev", preview=True)
