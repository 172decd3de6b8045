"""The inter-node all-reduce check: fabric floors per instance type, and the check itself over gloo on loopback,
where a node set passes a floor loopback can carry and fails one it cannot (a lowered and a raised floor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch.multiprocessing as mp
from sahab.workloads.node_fabric import FAR_BELOW, Fabric, fabric_of

from tools.ports import free_port


def test_each_fabric_has_its_own_floor():
    assert fabric_of("p5.48xlarge") == Fabric("efa", 3200)
    assert fabric_of("g6e.12xlarge") == Fabric("efa", 100)
    assert fabric_of("Standard_ND96isr_H100_v5") == Fabric("infiniband", 3200)
    assert fabric_of("Standard_NC40ads_H100_v5").name == fabric_of(None).name == "ethernet"
    # "far below": a quarter of line rate, in bytes per second
    assert Fabric("efa", 100).floor_bytes_per_s == pytest.approx(100e9 / 8 * FAR_BELOW)
    assert Fabric.from_env(Fabric("infiniband", 1600).to_env()) == Fabric("infiniband", 1600)
    with pytest.raises(ValueError, match="SAHAB_FABRIC"):
        Fabric.from_env("efa:fast")


FLOORS_GBPS = (0.001, 10_000_000)  # one loopback carries, one (10 Pb/s) it cannot


def _rank(rank: int, port: int, out: str) -> None:
    import os
    import sys

    import torch
    import torch.distributed as dist
    from sahab.workloads.train.distributed import DistEnv
    from sahab.workloads.train.worker import fabric_carries

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    verdicts = []
    for gbps in FLOORS_GBPS:
        os.environ["SAHAB_FABRIC"] = Fabric("ethernet", gbps).to_env()
        verdicts.append(fabric_carries(DistEnv(rank, 0, 2, 1, 0, torch.device("cpu"))))  # two one-worker nodes
    with open(f"{out}.{rank}", "w") as f:
        json.dump(verdicts, f)
    dist.destroy_process_group()
    # Its verdicts written, the rank ends here: under load gloo's threads have aborted the interpreter's own
    # teardown ("terminate called without an active exception", SIGABRT), which is not what this test is about.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# Not `alone`: no torchrun (two ranks over a TCP init, the process group's default timeout), and no load moves a
# loopback all-reduce across 1 Mb/s or 10 Pb/s.
def test_a_node_set_far_below_its_fabric_does_not_train(tmp_path, capfd):
    out = str(tmp_path / "verdicts")
    mp.start_processes(_rank, args=(free_port(), out), nprocs=2, start_method="spawn", join=True)
    # every rank agrees: the set passes the floor loopback carries and fails the one it cannot
    assert [json.loads(Path(f"{out}.{r}").read_text()) for r in (0, 1)] == [[True, False], [True, False]]
    err = capfd.readouterr()
    assert "far below the ethernet fabric" in err.err and '"event": "fabric"' in err.out
