"""`sahab node-validate`: the verdict on the node's own object, against a fake API server on loopback.

The fake serves one Node per name over HTTP on 127.0.0.1, applies JSON merge patches (RFC 7386) as the API
server does, records every request, and can refuse a PATCH the way an admission policy does."""

from __future__ import annotations

import copy
import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sahab.workloads.node_validation import (
    CLASS_LABEL,
    FAILED_PROBES,
    FINGERPRINT,
    LABEL,
    REASON,
    TIME,
    BenchOutcome,
    NodeAPI,
    Settings,
    due,
    fingerprint,
    label_value,
    rfc3339,
    round_once,
    verdict_patch,
)

NOW = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)
DAY, QUARTER = timedelta(hours=24), timedelta(minutes=15)


def _node(name: str, labels: dict | None = None, annotations: dict | None = None, boot: str = "b1") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})},
                         "annotations": dict(annotations or {})},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
            "status": {"nodeInfo": {"bootID": boot, "kernelVersion": "6.1.0-28", "kubeletVersion": "v1.34.1"},
                       "capacity": {"cpu": "2", "memory": "8Gi"}}}


def _judged(name: str, verdict: str, when: datetime, **kw) -> dict:
    node = _node(name, **kw)
    node["metadata"]["labels"][LABEL] = verdict
    node["metadata"]["annotations"].update({TIME: rfc3339(when), FINGERPRINT: fingerprint(node)})
    return node


def _merge(target, patch):
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


class FakeAPI:
    """Nodes by name; `refuse` maps a node name to the message a PATCH of it is refused (403) with."""

    def __init__(self, nodes: list[dict]):
        self.nodes = {n["metadata"]["name"]: copy.deepcopy(n) for n in nodes}
        self.requests: list[dict] = []
        self.refuse: dict[str, str] = {}
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _answer(self, status: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _node(self):
                prefix = "/api/v1/nodes/"
                return self.path[len(prefix):] if self.path.startswith(prefix) else None

            def do_GET(self):
                name = self._node()
                fake.requests.append({"method": "GET", "node": name, "auth": self.headers.get("Authorization")})
                if name not in fake.nodes:
                    return self._answer(404, {"kind": "Status", "message": f'nodes "{name}" not found'})
                return self._answer(200, fake.nodes[name])

            def do_PATCH(self):
                name = self._node()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"method": "PATCH", "node": name, "body": body,
                                      "type": self.headers.get("Content-Type")})
                if name in fake.refuse:
                    return self._answer(403, {"kind": "Status", "message": fake.refuse[name]})
                fake.nodes[name] = _merge(fake.nodes[name], body)
                return self._answer(200, fake.nodes[name])

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def patches(self) -> list[dict]:
        return [r for r in self.requests if r["method"] == "PATCH"]


@pytest.fixture
def fake():
    servers = []

    def start(*nodes: dict) -> FakeAPI:
        servers.append(FakeAPI(list(nodes)))
        return servers[-1]

    yield start
    for s in servers:
        s.server.shutdown()
        s.server.server_close()


def _failing() -> BenchOutcome:
    result = {"hardware_class": "cpu-avx512-bf16", "verdict": "fail", "probes": {
        "gemm": {"value": 120.0, "floor": 195.0, "passed": False},
        "memory_bandwidth": {"value": 9.0, "floor": 5.0, "passed": True}}}
    return BenchOutcome(1, result, "failed: gemm: 120 GFLOP/s is 38% below its baseline floor of 195 GFLOP/s\n")


# ---- when a verdict is due ---------------------------------------------------------------------------------
def test_a_new_node_is_validated_at_once():
    assert due(_node("n1"), NOW, DAY, QUARTER) == "not validated yet"


def test_a_pass_stands_for_the_interval_then_is_due():
    assert due(_judged("n1", "passed", NOW - timedelta(hours=23)), NOW, DAY, QUARTER) is None
    assert due(_judged("n1", "passed", NOW - DAY), NOW, DAY, QUARTER) == "passed 1d ago; re-validated every 1d"


def test_a_failed_or_inconclusive_node_is_retried_after_the_delay():
    for verdict in ("failed", "inconclusive", "error"):
        assert due(_judged("n1", verdict, NOW - timedelta(minutes=14)), NOW, DAY, QUARTER) is None
        assert due(_judged("n1", verdict, NOW - QUARTER), NOW, DAY, QUARTER).startswith(f"{verdict} 15m ago")


def test_a_node_that_changed_is_due_whatever_its_verdict():
    node = _judged("n1", "passed", NOW - timedelta(minutes=1))
    rebooted = copy.deepcopy(node)
    rebooted["status"]["nodeInfo"]["bootID"] = "b2"
    assert "changed since it was judged" in due(rebooted, NOW, DAY, QUARTER)
    lost_gpu = copy.deepcopy(node)
    lost_gpu["status"]["capacity"]["nvidia.com/gpu"] = "7"
    assert "changed" in due(lost_gpu, NOW, DAY, QUARTER)
    # what the validator itself writes does not count as a change
    relabelled = copy.deepcopy(node)
    relabelled["metadata"]["labels"][CLASS_LABEL] = "h100-sxm"
    assert fingerprint(relabelled) == fingerprint(node)


def test_an_expired_pass_is_due_with_its_reason():
    node = _judged("n1", "expired", NOW, annotations={REASON: "passed 1d ago; re-validated every 1d"})
    assert due(node, NOW, DAY, QUARTER) == "expired: passed 1d ago; re-validated every 1d"


# ---- what is written ---------------------------------------------------------------------------------------
def test_a_failure_is_recorded_with_its_class_probes_and_reason():
    patch = verdict_patch(_failing(), _node("n1"), NOW)["metadata"]
    assert patch["labels"] == {LABEL: "failed", CLASS_LABEL: "cpu-avx512-bf16"}
    assert patch["annotations"][FAILED_PROBES] == "gemm"
    assert patch["annotations"][REASON].startswith("failed: gemm: 120 GFLOP/s is 38% below")
    assert patch["annotations"][TIME] == "2026-11-23T14:00:00Z"
    assert all(k.startswith("sahab.io/validation") for part in patch.values() for k in part)


def test_a_pass_clears_what_a_failure_left():
    patch = verdict_patch(BenchOutcome(0, {"hardware_class": "h100-sxm", "probes": {}}), _node("n1"), NOW)
    assert patch["metadata"]["labels"][LABEL] == "passed"
    assert patch["metadata"]["annotations"][REASON] is None  # null in a merge patch removes the key
    assert patch["metadata"]["annotations"][FAILED_PROBES] is None


@pytest.mark.parametrize(("code", "verdict"), [(0, "passed"), (1, "failed"), (2, "error"), (3, "inconclusive"),
                                               (-9, "error")])
def test_bench_exit_codes_map_to_verdicts(code, verdict):
    assert BenchOutcome(code, None, "").verdict == verdict


def test_label_values_stay_within_kubernetes_rules():
    assert label_value("cpu-avx512-bf16") == "cpu-avx512-bf16"
    assert label_value("8 x NVIDIA H100/80GB") == "8-x-NVIDIA-H100-80GB"
    assert len(label_value("x" * 100)) == 63
    assert label_value("///") is None


# ---- the loop against the fake API server ------------------------------------------------------------------
def test_a_due_node_is_benchmarked_and_only_its_own_object_is_patched(fake, tmp_path):
    api = fake(_node("n1"), _node("n2"))
    token = tmp_path / "token"
    token.write_text("t0k\n")
    ran = []
    outcome = round_once(NodeAPI(api.url, token_file=token), Settings(node="n1"),
                         bench=lambda: ran.append(1) or _failing(), clock=lambda: NOW)
    assert ran == [1] and outcome.verdict == "failed"
    [patch] = api.patches()
    assert patch["node"] == "n1" and patch["type"] == "application/merge-patch+json"
    assert {r["node"] for r in api.requests} == {"n1"}
    assert all(r["auth"] == "Bearer t0k" for r in api.requests if r["method"] == "GET")
    assert api.nodes["n1"]["metadata"]["labels"][LABEL] == "failed"
    assert api.nodes["n1"]["spec"] == _node("n1")["spec"]  # nothing else of the node changed
    assert LABEL not in api.nodes["n2"]["metadata"]["labels"]


def test_a_node_whose_verdict_stands_is_left_alone(fake):
    api = fake(_judged("n1", "passed", NOW - timedelta(hours=1)))
    assert round_once(NodeAPI(api.url), Settings(node="n1"), bench=pytest.fail, clock=lambda: NOW) is None
    assert not api.patches()


def test_watching_expires_a_stale_pass_without_benchmarking(fake):
    api = fake(_judged("n1", "passed", NOW - timedelta(days=2)), _judged("n2", "failed", NOW - DAY))
    for node in ("n1", "n2"):
        round_once(NodeAPI(api.url), Settings(node=node, watch=True), bench=pytest.fail, clock=lambda: NOW)
    [patch] = api.patches()  # a failed node is the benchmarking pod's business, not the watcher's
    assert patch["node"] == "n1"
    assert api.nodes["n1"]["metadata"]["labels"][LABEL] == "expired"
    assert api.nodes["n1"]["metadata"]["annotations"][REASON] == "passed 2d ago; re-validated every 1d"


# ---- the command, end to end -------------------------------------------------------------------------------
def test_the_command_records_a_bench_that_could_not_judge_the_node(fake, run_sahab, tmp_path):
    """A baseline from another hardware class: the real `sahab bench` refuses it (exit 2) within seconds."""
    baseline = tmp_path / "h100.json"
    baseline.write_text(json.dumps({"hardware_class": "h100-sxm", "values": {"gemm": 1.0}}))
    api = fake(_node("n1"), _node("n2"))
    done = run_sahab("node-validate", "--once", "--node", "n1", "--api-server", api.url, "--baseline",
                     str(baseline), "--time-budget", "20", timeout=120)
    assert done.returncode == 2, done.stderr
    [patch] = api.patches()
    assert patch["node"] == "n1"
    node = api.nodes["n1"]["metadata"]
    assert node["labels"][LABEL] == "error"
    assert "baseline was measured on h100-sxm" in node["annotations"][REASON]
    assert "validating (not validated yet)" in done.stderr


@pytest.mark.slow  # not `alone`: whichever verdict the bench reaches (a busy host's too), the node must record it
def test_the_command_benchmarks_within_its_budget_and_records_what_the_bench_said(fake, run_sahab):
    api = fake(_node("n1"))
    done = run_sahab("node-validate", "--once", "--node", "n1", "--api-server", api.url, "--time-budget", "30",
                     timeout=200)
    verdict = {0: "passed", 1: "failed", 3: "inconclusive"}[done.returncode]  # a busy host may be inconclusive
    labels = api.nodes["n1"]["metadata"]["labels"]
    assert labels[LABEL] == verdict
    assert labels[CLASS_LABEL].startswith("cpu-")  # this machine's class, as the bench judged it
    assert (REASON in api.nodes["n1"]["metadata"]["annotations"]) is (verdict != "passed")


def test_a_refusal_by_the_api_server_is_one_error_line(fake, run_sahab):
    api = fake(_judged("n1", "passed", datetime.now(UTC) - timedelta(days=3)))
    api.refuse["n1"] = ("nodes \"n1\" is forbidden: ValidatingAdmissionPolicy 'sahab-node-validation' denied "
                        "request: the node validator may change only the node its pod runs on")
    done = run_sahab("node-validate", "--once", "--watch", "--node", "n1", "--api-server", api.url, timeout=60)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: node n1: PATCH node n1: HTTP 403: nodes \"n1\" is forbidden")


def test_outside_a_pod_without_an_api_server_it_says_what_is_missing(run_sahab):
    done = run_sahab("node-validate", "--once", "--node", "n1", env={"KUBERNETES_SERVICE_HOST": ""})
    assert done.returncode == 2
    assert done.stderr.startswith("error: node n1: not in a pod with a service-account token")


@pytest.mark.parametrize(("args", "field"), [(["--interval", "0h"], "--interval"), (["--poll", "soon"], "--poll"),
                                             (["--time-budget", "1"], "--time-budget"), ([], "--node")])
def test_bad_settings_are_refused_naming_the_option(run_sahab, args, field):
    done = run_sahab("node-validate", "--once", *args, env={"NODE_NAME": ""} if not args else None)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error:") and field in line
