"""The trainer's parts, in process: config, data, FLOPs, schedule, checkpoints, and that the model learns."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
import torch
from sahab.workloads.train import checkpoint
from sahab.workloads.train.config import ModelConfig, TrainConfig
from sahab.workloads.train.data import ALPHABET, decode, default_batches, encode, generate_corpus
from sahab.workloads.train.distributed import DistEnv
from sahab.workloads.train.flops import flops_per_token, matmul_params
from sahab.workloads.train.model import GPT
from sahab.workloads.train.trainer import Trainer, learning_rate
from sahab.workloads.train.worker import build_parser, config_from_args, config_to_args

TINY = ModelConfig(vocab_size=16, seq_len=32, n_layers=2, n_heads=2, d_model=64)


def test_config_rejects_heads_that_do_not_divide_the_width():
    with pytest.raises(ValueError, match="divisible"):
        ModelConfig(d_model=100, n_heads=3)


def test_config_round_trips_through_worker_flags():
    cfg = TrainConfig(model=TINY, steps=7, checkpoint_every=3, compile=True, checkpoint_dir="/x")
    parsed = config_from_args(build_parser().parse_args(config_to_args(cfg)))
    assert parsed == cfg
    assert TrainConfig.from_json(cfg.to_json()) == cfg


def test_corpus_is_arithmetic_that_is_right_and_reproducible():
    text = generate_corpus(2_000, seed=3)
    assert text == generate_corpus(2_000, seed=3) != generate_corpus(2_000, seed=4)
    for line in text.splitlines():
        left, total = line.split("=")
        a, b = left.split("+")
        assert int(a) + int(b) == int(total)
    assert decode(encode(text[:100])) == text[:100]
    assert set(text) <= set(ALPHABET)


def test_batches_are_next_token_pairs_and_a_function_of_step_and_rank():
    batches = default_batches(seq_len=16, batch_size=4, seed=1, n_chars=10_000)
    x, y = batches.batch(step=5, micro=0, rank=1)
    assert x.shape == y.shape == (4, 16)
    assert torch.equal(x[:, 1:], y[:, :-1])  # targets are the inputs shifted by one token
    assert torch.equal(batches.batch(5, 0, 1)[0], x)  # a resumed run sees the same batch
    assert not torch.equal(batches.batch(5, 0, 0)[0], x)  # ranks see different data


def test_flops_count_every_matmul_weight_of_the_model():
    model = GPT(TINY)
    linear = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    assert matmul_params(TINY) == linear  # includes the tied output head
    attention = 12 * TINY.n_layers * TINY.d_model * TINY.seq_len
    assert flops_per_token(TINY) == 6 * linear + attention


def test_learning_rate_warms_up_then_decays_to_the_floor():
    cfg = TrainConfig(model=TINY, steps=100, warmup_steps=10, lr=1e-3, min_lr=1e-4)
    rates = [learning_rate(s, cfg) for s in range(100)]
    assert rates[0] < rates[9] == pytest.approx(1e-3)
    assert all(a >= b for a, b in itertools.pairwise(rates[10:]))
    assert learning_rate(100, cfg) == pytest.approx(1e-4)


def test_checkpoints_are_visible_only_when_complete_and_pruned(tmp_path):
    saver = checkpoint.Checkpointer(str(tmp_path), is_main=True, is_node_main=True, keep=2)
    for step in (10, 20, 30):
        saver.save(step, {"w": torch.ones(2) * step}, {"first_loss": 1.0})
    # a save killed before its manifest: shards on disk, never a checkpoint
    (tmp_path / "step-00000040").mkdir()
    (tmp_path / "step-00000040" / "__0_0.distcp").write_bytes(b"half a shard")
    assert checkpoint.available_steps(tmp_path) == [20, 30]
    assert not (tmp_path / "step-00000010").exists()  # pruned with its manifest
    state = {"w": torch.zeros(2)}
    manifest = saver.load(30, state)
    assert state["w"].tolist() == [30.0, 30.0] and manifest["step"] == 30
    assert set(manifest["files"]) >= {"step-00000030/.metadata", "step-00000030/__0_0.distcp"}


def _trainer(tmp_path, steps, every=0):
    cfg = TrainConfig(model=TINY, steps=steps, batch_size=8, checkpoint_every=every, warmup_steps=2,
                      checkpoint_dir=str(tmp_path), precision="fp32", log_every=1000)
    return Trainer(cfg, DistEnv(0, 0, 1, 1, 0, torch.device("cpu")), peak_flops=1e11)


def unigram_entropy(text: str) -> float:
    """Loss of the best model that knows symbol frequencies and nothing else."""
    n = len(text)
    return -sum(c / n * math.log(c / n) for c in Counter(text).values())


def test_trainer_learns_and_resumes_exactly_where_it_stopped(tmp_path):
    torch.set_num_threads(1)
    summary = _trainer(tmp_path, steps=80, every=40).train()
    assert summary["steps"] == 80 and summary["resumed_from"] == 0
    # it has learned structure (where digits, "+", "=" and newlines go), not just symbol frequencies
    assert summary["final_loss"] < unigram_entropy(generate_corpus(100_000, seed=1337)) - 0.15
    assert summary["final_loss"] < summary["first_loss"] - 0.4
    assert 0 < summary["mfu"] < 1

    # a new start with more steps picks up the newest checkpoint, its weights and its first loss
    resumed = _trainer(tmp_path, steps=85, every=40)
    assert resumed.step == 80 and resumed.resumed_from == 80
    saved = {k: torch.zeros_like(v) for k, v in resumed.raw_model.state_dict().items()}
    checkpoint.Checkpointer(str(tmp_path), True, True).load(80, {"model": saved})
    assert all(torch.equal(saved[k], v) for k, v in resumed.raw_model.state_dict().items())
    again = resumed.train()
    assert again["steps"] == 85 and again["first_loss"] == summary["first_loss"]
    assert checkpoint.available_steps(tmp_path) == [80, 85]


def test_resume_refuses_a_checkpoint_of_another_model(tmp_path):
    _trainer(tmp_path, steps=2, every=1).train()
    other = TrainConfig(model=ModelConfig(vocab_size=16, seq_len=32, n_layers=1, n_heads=2, d_model=64),
                        checkpoint_dir=str(tmp_path), precision="fp32")
    with pytest.raises(SystemExit, match="different model"):
        Trainer(other, DistEnv(0, 0, 1, 1, 0, torch.device("cpu")), None)


def test_cpu_bf16_matmul_attention_matches_sdpa(monkeypatch):
    from sahab.workloads.train import model as model_module

    torch.manual_seed(0)
    gpt = GPT(TINY)
    x = torch.randint(0, len(ALPHABET), (4, TINY.seq_len))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        matmul_path, _ = gpt(x)
        monkeypatch.setattr(model_module, "CPU_BF16_MATMUL_ATTENTION_MAX_SEQ", 0)  # force SDPA
        sdpa_path, _ = gpt(x)
    fp32_path, _ = gpt(x)
    assert torch.allclose(matmul_path.float(), sdpa_path.float(), atol=0.05)
    assert torch.allclose(matmul_path.float(), fp32_path, atol=0.05)
    # causal: changing a later token leaves the earlier positions' logits alone
    changed = x.clone()
    changed[:, -1] = (changed[:, -1] + 1) % len(ALPHABET)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        monkeypatch.undo()
        again, _ = gpt(changed)
    assert torch.equal(again[:, :-1], matmul_path[:, :-1])


def test_objects_pruning_could_not_delete_are_named_and_training_goes_on(capsys):
    """S3's DeleteObjects answers 200 with per-key errors (a legal hold, a denying policy): the trainer says which
    objects stay behind instead of dropping the answer."""
    from sahab.workloads.train.storage import S3Store

    class DenyingClient:  # the answer shape of S3's DeleteObjects when a key is refused
        def delete_objects(self, Bucket, Delete):
            return {"Deleted": [], "Errors": [{"Key": o["Key"], "Code": "AccessDenied", "Message": "Access Denied"}
                                              for o in Delete["Objects"]]}

    store = S3Store.__new__(S3Store)
    store.uri, store.bucket, store.prefix, store.client = "s3://ckpt/team", "ckpt", "team", DenyingClient()
    store.delete(["step-00000001/__0_0.distcp", "manifests/step-00000001.json"])
    err = capsys.readouterr().err
    assert "2 old checkpoint object(s) could not be deleted" in err
    assert "team/step-00000001/__0_0.distcp: AccessDenied" in err


def test_presets_give_each_gpu_class_a_model_worth_it_and_explicit_flags_win():
    from sahab.workloads.train.flops import matmul_params
    from sahab.workloads.train.presets import PRESETS, apply_preset, preset_for_class
    from sahab.workloads.train.worker import build_parser, config_from_args

    assert preset_for_class("h100-nvl") == preset_for_class("a100-80gb-sxm") == "large"
    assert preset_for_class("a100-40gb-sxm") == "medium" and preset_for_class("t4") == "small"
    assert preset_for_class("a100-40gb-sxm-mig-1g.5gb") == "tiny" and preset_for_class("cpu-avx2") == "tiny"
    sizes = [matmul_params(PRESETS[n][0]) for n in ("tiny", "small", "medium", "large")]
    assert sizes == sorted(sizes) and sizes[-1] > 500e6
    cfg = config_from_args(build_parser().parse_args(["--batch-size", "3", "--d-model", "64", "--n-heads", "2"]))
    large = apply_preset(cfg, "auto", "h100-sxm", frozenset({"batch_size"}))
    assert large.model == PRESETS["large"][0] and large.batch_size == 3
    tiny_shape = apply_preset(cfg, "large", None, frozenset({"d_model", "n_heads"}))
    assert (tiny_shape.model.d_model, tiny_shape.model.n_layers) == (64, PRESETS["large"][0].n_layers)
    assert apply_preset(cfg, "auto", None) == cfg  # a GPU the catalog does not know: as configured
