"""Careless and hostile programs under `sahab plan` / `sahab check`: stopped, reported in one `error:` line,
never a hang, never a traceback, never program output in machine output. And what a preview promises:
unknowns, transforms, data sources, Kubernetes YAML, project config, StackReferences."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from sahab.cli import main
from sahab.engine import UNKNOWN, plan


def program(tmp_path: Path, code: str, *, name: str = "hostile", stacks: dict[str, str] | None = None,
            project_extra: str = "") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n{project_extra}")
    for stack, text in (stacks or {"dev": "config:\n  aws:region: me-central-1\n"}).items():
        (folder / f"Pulumi.{stack}.yaml").write_text(text)
    (folder / "__main__.py").write_text(textwrap.dedent(code))
    return folder


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Exception ignored" not in err
    return code, out, err


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


BUCKET = "import pulumi_aws as aws\nbucket = aws.s3.BucketV2('data')\n"


@pytest.mark.parametrize("body", ["while True:\n    pass\n", "import time\ntime.sleep(3600)\n"],
                         ids=["busy-loop", "sleep"])
def test_a_program_that_never_finishes_is_stopped_at_the_time_limit(tmp_path, capsys, body):
    folder = program(tmp_path, body)
    code, out, err = run(capsys, "check", "--program", str(folder), "--stack", "dev", "--timeout", "3")
    assert code == 2 and out == ""
    assert len(errors(err)) == 1 and "did not finish within 3 s and was stopped" in err


def test_the_time_limit_can_come_from_the_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SAHAB_PROGRAM_TIMEOUT", "2")
    folder = program(tmp_path, "import time\ntime.sleep(3600)\n")
    code, _, err = run(capsys, "plan", "--program", str(folder))
    assert code == 2 and "did not finish within 2 s" in err


def test_a_thread_the_program_leaves_running_does_not_hold_the_plan(tmp_path, capsys):
    folder = program(tmp_path, "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"
                               + BUCKET)
    code, out, _ = run(capsys, "plan", "--program", str(folder), "--format", "json", "--timeout", "120")
    assert code == 0
    assert any(r["name"] == "data" for r in json.loads(out)["resources"])


def test_a_program_ending_the_process_itself_is_a_program_error_not_its_exit_code(tmp_path, capsys):
    folder = program(tmp_path, "import os\nos._exit(7)\n")
    code, _, err = run(capsys, "check", "--program", str(folder))
    assert code == 2
    assert errors(err) == [f"error: {folder / '__main__.py'}: the program ended the process (exit status 7) "
                           "before it finished"]


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_what_a_program_prints_never_reaches_machine_output(tmp_path, capsys, fmt):
    folder = program(tmp_path, "import os, sys\nprint('hello from the program')\nos.write(1, b'raw fd write\\n')\n"
                               "sys.stderr.write('to stderr\\n')\n" + BUCKET)
    code, out, err = run(capsys, "check", "--program", str(folder), "--format", fmt)
    assert code in (0, 1)
    assert "hello from the program" not in out and "raw fd write" not in out
    assert "hello from the program" in err and "raw fd write" in err
    if fmt == "junit":
        import xml.etree.ElementTree as ET

        ET.fromstring(out)
    else:
        json.loads(out)


def test_plan_and_check_json_carry_the_schema_version_and_stay_parseable(tmp_path, capsys):
    folder = program(tmp_path, "print('noise')\n" + BUCKET)
    code, out, _ = run(capsys, "plan", "--program", str(folder), "--format", "json")
    from sahab.schema import SCHEMA_VERSION

    assert code == 0 and json.loads(out)["schemaVersion"] == SCHEMA_VERSION
    code, out, _ = run(capsys, "check", "--program", str(folder), "--format", "json")
    assert code in (0, 1) and json.loads(out)["schemaVersion"] == SCHEMA_VERSION


def test_an_error_names_the_programs_own_file_and_line(tmp_path, capsys):
    folder = program(tmp_path, "import pulumi\n\n\nraise ValueError('bad input')\n")
    code, _, err = run(capsys, "plan", "--program", str(folder))
    assert code == 2 and errors(err) == [f"error: {folder / '__main__.py'}:4: ValueError: bad input"]


def test_an_error_inside_an_apply_names_the_programs_line_not_asyncio(tmp_path, capsys):
    folder = program(tmp_path, "import pulumi\nv = pulumi.Output.from_input('x')\n"
                               "v.apply(lambda s: 1 / 0)\n")
    code, _, err = run(capsys, "plan", "--program", str(folder))
    assert code == 2
    (line,) = errors(err)
    assert line.startswith(f"error: {folder / '__main__.py'}:3: ZeroDivisionError") and "asyncio" not in line


def test_a_missing_provider_package_is_one_line_naming_what_to_install(tmp_path, capsys):
    folder = program(tmp_path, "import pulumi\nimport pulumi_gcp as gcp\n")
    code, _, err = run(capsys, "check", "--program", str(folder))
    assert code == 2
    (line,) = errors(err)
    assert f"{folder / '__main__.py'}:2:" in line and "pip install pulumi-gcp" in line


def test_a_plan_is_a_preview_and_unknown_outputs_do_not_break_the_program(tmp_path):
    folder = program(tmp_path, """
        import pulumi
        import pulumi_aws as aws
        bucket = aws.s3.BucketV2("data")
        upper = bucket.arn.apply(lambda arn: arn.upper())  # never runs in a preview
        aws.s3.BucketV2("tagged", tags={"arn": upper})
        pulumi.export("dry_run", pulumi.runtime.is_dry_run())
        pulumi.export("arn", upper)
    """)
    result = plan(folder, "dev", preview=True)
    assert result.outputs == {"dry_run": True, "arn": UNKNOWN}
    tagged = next(r for r in result.resources if r.name == "tagged")
    assert tagged.inputs["tags"] == {"arn": UNKNOWN}


def test_resource_references_plan_the_same_every_time(tmp_path):
    folder = program(tmp_path, """
        import json
        import pulumi_aws as aws
        role = aws.iam.Role("role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": []}))
        for i in range(15):
            aws.iam.RolePolicyAttachment(f"attach-{i}", role=role,
                                         policy_arn="arn:aws:iam::aws:policy/ReadOnlyAccess")
            aws.iam.InstanceProfile(f"profile-{i}", role=role)
    """)
    plans = [plan(folder, "dev", preview=True).contract() for _ in range(3)]
    assert plans[0] == plans[1] == plans[2]
    attach = next(r for r in plans[0]["resources"] if r["name"] == "attach-3")
    assert attach["inputs"]["role"] == "urn:pulumi:dev::hostile::aws:iam/role:Role::role"


def test_transforms_run_before_the_resource_is_recorded(tmp_path):
    folder = program(tmp_path, """
        import pulumi
        import pulumi_aws as aws

        def tag_everything(args):
            if args.type_ == "aws:s3/bucketV2:BucketV2":
                return pulumi.ResourceTransformResult({**args.props, "tags": {"owner": "platform"}}, args.opts)

        def own(args):
            return pulumi.ResourceTransformResult({**args.props, "forceDestroy": False}, args.opts)

        pulumi.runtime.register_resource_transform(tag_everything)
        aws.s3.BucketV2("data", force_destroy=True, opts=pulumi.ResourceOptions(transforms=[own]))
    """)
    bucket = next(r for r in plan(folder, "dev", preview=True).resources if r.name == "data")
    assert bucket.inputs["tags"] == {"owner": "platform"}
    assert bucket.inputs["forceDestroy"] is False


def test_data_sources_answer_consistently_with_the_stack(tmp_path):
    folder = program(tmp_path, """
        import pulumi
        import pulumi_aws as aws
        import pulumi_azure_native as azure_native
        ami = aws.ec2.get_ami(most_recent="true", owners=["amazon"],
                              filters=[{"name": "name", "values": ["amzn2-*"]}])
        zone = aws.route53.get_zone(name="example.com")
        azs = aws.get_availability_zones()
        me = aws.get_caller_identity()
        doc = aws.iam.get_policy_document(statements=[{"actions": ["s3:GetObject"], "resources": ["*"]}])
        keys = azure_native.storage.list_storage_account_keys(account_name="acct", resource_group_name="rg")
        pulumi.export("ami", ami.id)
        pulumi.export("recent", ami.most_recent)
        pulumi.export("zone", zone.name)
        pulumi.export("zone_id", zone.zone_id)
        pulumi.export("azs", azs.names)
        pulumi.export("account", me.account_id)
        pulumi.export("doc", doc.json)
        pulumi.export("key", keys.keys[0].value)
    """)
    out = plan(folder, "dev", preview=True).outputs
    assert out["ami"].startswith("ami-0") and out["recent"] is True
    assert out["zone"] == "example.com" and out["zone_id"].startswith("Z")
    assert out["azs"] == ["me-central-1a", "me-central-1b", "me-central-1c"]
    assert out["account"] == "111122223333"
    assert json.loads(out["doc"])["Statement"] == [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]
    assert out["key"]


def test_kubernetes_yaml_objects_are_planned_like_any_resource(tmp_path):
    folder = program(tmp_path, """
        import pulumi_kubernetes as k8s
        manifest = '''
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}},
               spec: {containers: [{name: web, image: nginx}]}}}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: web}
        spec: {ports: [{port: 80}]}
        '''
        open("app.yaml", "w").write(manifest)
        k8s.yaml.ConfigFile("v1", file="app.yaml")
        k8s.yaml.v2.ConfigGroup("v2", yaml=manifest)
        k8s.yaml.v2.ConfigFile("v2file", file="app.yaml")
    """)
    resources = plan(folder, "dev", preview=True).resources
    deployments = [r for r in resources if r.type == "kubernetes:apps/v1:Deployment"]
    services = [r for r in resources if r.type == "kubernetes:core/v1:Service"]
    assert len(deployments) == 3 and len(services) == 3
    assert {d.inputs["spec"]["template"]["spec"]["containers"][0]["image"] for d in deployments} == {"nginx"}


def test_config_is_read_as_the_cli_reads_it(tmp_path):
    folder = program(tmp_path, """
        import pulumi
        config = pulumi.Config()
        pulumi.export("greeting", config.require("greeting"))
        pulumi.export("size", config.require("size"))
        pulumi.export("region", pulumi.Config("aws").require("region"))
    """, project_extra=("stackConfigDir: stacks\nconfig:\n  greeting:\n    type: string\n    default: hello\n"
                        "  size: {type: string, default: small}\n  aws:region: eu-west-1\n"), stacks={})
    (folder / "stacks").mkdir()
    (folder / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  hostile:size: large\n")
    out = plan(folder, "dev", preview=True).outputs
    assert out == {"greeting": "hello", "size": "large", "region": "eu-west-1"}


def test_a_plaintext_credential_in_stack_config_is_never_printed(tmp_path, capsys):
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLAINTEXT"
    stack = f"config:\n  aws:region: me-central-1\n  aws:secretKey: {secret}\n  hostile:dbPassword: hunter2hunter2\n"
    folder = program(tmp_path, BUCKET, stacks={"dev": stack})
    for argv in (["plan", "--format", "json"], ["plan"], ["check", "--format", "json"], ["check"]):
        code, out, err = run(capsys, *argv, "--program", str(folder))
        assert code in (0, 1)
        assert secret not in out + err and "hunter2hunter2" not in out + err
        assert "aws:secretKey holds a credential in plaintext" in (err if argv[0] == "check" else out + err)
    doc = plan(folder, "dev", preview=True).contract()
    assert doc["config"]["aws:secretKey"] == "[secret]"
    provider = next(r for r in doc["resources"] if r["type"] == "pulumi:providers:aws")
    assert provider["inputs"]["secretKey"] == "[secret]"


def test_an_unwritable_output_is_refused_before_the_program_runs(tmp_path, capsys):
    folder = program(tmp_path, "import time\ntime.sleep(3600)\n")
    for target in (tmp_path, tmp_path / "missing" / "report.json"):
        code, _, err = run(capsys, "check", "--program", str(folder), "--output", str(target), "--timeout", "600")
        assert code == 2 and len(errors(err)) == 1 and errors(err)[0].startswith(f"error: --output {target}")


def test_a_stack_reference_to_itself_is_a_cycle_naming_the_stack(tmp_path, capsys):
    folder = program(tmp_path, "import pulumi\nref = pulumi.StackReference('organization/hostile/dev')\n")
    code, _, err = run(capsys, "plan", "--program", str(folder))
    assert code == 2 and "stack reference cycle: hostile/dev -> hostile/dev" in errors(err)[0]


def test_stack_references_around_a_loop_are_a_cycle_naming_every_stack(tmp_path, capsys):
    folder = program(tmp_path, "import pulumi\nother = pulumi.Config().require('other')\n"
                               "pulumi.export('x', pulumi.StackReference(other).get_output('x'))\n",
                     stacks={"a": "config:\n  hostile:other: organization/hostile/b\n",
                             "b": "config:\n  hostile:other: organization/hostile/a\n"})
    code, _, err = run(capsys, "plan", "--program", str(folder), "--stack", "a", "--timeout", "120")
    assert code == 2 and "stack reference cycle: hostile/a -> hostile/b -> hostile/a" in errors(err)[0]


def test_a_stack_reference_resolves_the_named_project_else_unknown(tmp_path):
    program(tmp_path, "import pulumi\npulumi.export('vpc', 'vpc-123')\n", name="network")
    folder = program(tmp_path, """
        import pulumi
        net = pulumi.StackReference("organization/network/dev")
        gone = pulumi.StackReference("organization/elsewhere/prod")
        pulumi.export("vpc", net.get_output("vpc"))
        pulumi.export("other", gone.get_output("vpc"))
    """, name="app")
    assert plan(folder, "dev", preview=True).outputs == {"vpc": "vpc-123", "other": UNKNOWN}


def test_a_program_runs_in_the_virtualenv_its_project_names(tmp_path):
    folder = program(tmp_path, "import sys, pulumi\npulumi.export('python', sys.executable)\n")
    (folder / "Pulumi.yaml").write_text("name: hostile\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n")
    # a virtualenv sharing this one's packages: its own interpreter path, the SDKs installed here
    venv = folder / "venv"
    (venv / "bin").mkdir(parents=True)
    os.symlink(sys.executable, venv / "bin" / "python")
    os.symlink(Path(sys.prefix) / "lib", venv / "lib")
    (venv / "pyvenv.cfg").write_text((Path(sys.prefix) / "pyvenv.cfg").read_text())
    assert plan(folder, "dev", preview=True).outputs["python"] == str(folder / "venv" / "bin" / "python")


@pytest.mark.parametrize("body", ["import os\nos._exit(7)\n", "import pulumi\nraise RuntimeError('boom')\n",
                                  BUCKET + "import threading, time\n"
                                           "threading.Thread(target=lambda: 1 / 0).start()\ntime.sleep(0.5)\n"])
def test_stderr_holds_nothing_but_the_verdict_in_a_fresh_process(tmp_path, body):
    """The whole process, teardown included: no traceback and no "Exception ignored" noise, ever."""
    import subprocess

    folder = program(tmp_path, body)
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--program", str(folder), "--format", "json"],
                          capture_output=True, text=True, timeout=300, check=False)
    lines = done.stderr.splitlines()
    if done.returncode == 2:
        assert len(lines) == 1 and lines[0].startswith("error: ") and done.stdout == ""
    else:
        assert "Traceback" not in done.stderr and "Exception" not in done.stderr
        assert json.loads(done.stdout)["summary"]
