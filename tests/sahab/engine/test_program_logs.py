"""What a program logs reaches Sahab's engine as the CLI's would, except the debug lines the engine never keeps: the
executor drops them before their RPC (`drop_debug_lines` in sahab-language-python-exec)."""

from __future__ import annotations

import textwrap

from sahab.engine import plan


def test_a_program_that_logs_debug_lines_keeps_its_warning_and_its_resources(tmp_path):
    """The program's own debug calls, with or without a resource, still return, and its warning reaches the plan."""
    (tmp_path / "Pulumi.yaml").write_text("name: levels\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(textwrap.dedent("""
        import pulumi
        from pulumi_kubernetes.core.v1 import ConfigMap

        first = ConfigMap("first", metadata={"name": "first"})
        pulumi.log.debug("a debug line")
        pulumi.log.debug("a debug line about first", resource=first)
        pulumi.log.warn("the program's own warning", resource=first)
        ConfigMap("second", metadata={"name": "second"})
    """))
    planned = plan(tmp_path, "dev", preview=True)
    assert {r.name for r in planned.resources if r.type == "kubernetes:core/v1:ConfigMap"} == {"first", "second"}
    assert planned.warnings == ["the program's own warning"]
