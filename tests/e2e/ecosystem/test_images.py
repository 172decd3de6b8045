"""The two training images: the same torch, every image pinned by digest with its tag beside it, every pip install
hash-checked from the image's locks."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
IMAGES = (ROOT / "workloads" / "Dockerfile", ROOT / "workloads" / "Dockerfile.cpu")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def torch_version(dockerfile: Path) -> str:
    text = dockerfile.read_text()
    base = re.search(r"^FROM pytorch/pytorch:(\d+\.\d+\.\d+)-", text, re.M)
    if base:
        return base[1]
    (lock,) = re.findall(r"source=(workloads/requirements-torch-cpu\.lock)", text)  # the CPU image's own torch
    (pin,) = re.findall(r"^torch==(\d+\.\d+\.\d+)\+cpu ", (ROOT / lock).read_text(), re.M)
    return pin


def test_both_images_ship_the_torch_of_the_lock():
    lock = (ROOT / "requirements-dev.lock").read_text()
    (locked,) = set(re.findall(r"^torch==(\d+\.\d+\.\d+)", lock, re.M))  # one version, every platform
    assert [torch_version(f) for f in IMAGES] == [locked, locked]


def test_every_image_is_pinned_by_digest_with_its_tag_in_a_comment():
    for dockerfile in IMAGES:
        lines = dockerfile.read_text().splitlines()
        assert DIGEST.search(lines[0]) and lines[0].startswith("# syntax=docker/dockerfile:")
        froms = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
        assert froms, dockerfile
        for i in froms:
            image = lines[i].split()[1]
            assert DIGEST.search(image), f"{dockerfile.name}: {image} not pinned by digest"
            tag = image.split("@", 1)[0]
            assert lines[i - 1] == f"# tag: {tag}", f"{dockerfile.name}: no `# tag: {tag}` above the FROM"


def _pip_installs(dockerfile: Path) -> list[str]:
    """The shell commands of every RUN that calls pip, continuation lines joined."""
    text = dockerfile.read_text().replace("\\\n", " ")
    return [part.strip() for line in text.splitlines() if line.startswith("RUN ")
            for part in line.split("&&") if "pip install" in part]


def test_every_pip_install_of_the_images_is_hash_checked_from_an_image_lock():
    locks = {"/tmp/requirements.lock": "workloads/requirements.lock", "/tmp/torch.lock":
             "workloads/requirements-torch-cpu.lock"}
    for dockerfile in IMAGES:
        text = dockerfile.read_text()
        installs = _pip_installs(dockerfile)
        assert installs, dockerfile.name
        for command in installs:
            words = command.split()
            assert "--require-hashes" in words and "--no-deps" in words, f"{dockerfile.name}: {command}"
            requirement = words[words.index("-r") + 1]
            assert f"source={locks[requirement]},target={requirement}" in text, f"{dockerfile.name}: {command}"
            # nothing named on the command line, where no hash could be checked
            assert words[-2:] == ["-r", requirement], f"{dockerfile.name}: {command}"


def test_the_image_locks_are_the_dev_lock_entries_of_what_the_image_installs(tmp_path, monkeypatch):
    """Same versions and hashes as the project's lock, for the image's machine (Linux x86_64, CPython 3.11), re-cut
    identically by `tools/lock.py image`."""
    import importlib.util
    import sys

    from packaging.markers import Marker

    spec = importlib.util.spec_from_file_location("lock", ROOT / "tools" / "lock.py")
    lock = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = lock  # dataclasses look their module up there
    spec.loader.exec_module(lock)
    env = lock.machine_environment("linux-x86_64", "3.11")
    dev = {e.name: (e.version, e.hashes) for e in lock.read_lock(lock.DEV_LOCK)
           if e.marker is None or Marker(e.marker).evaluate(env)}
    image = {e.name: (e.version, e.hashes) for e in lock.read_lock(lock.IMAGE_LOCK)}
    torch = {e.name: (e.version, e.hashes) for e in lock.read_lock(lock.IMAGE_TORCH_LOCK)}
    assert all(dev[name] == pin for name, pin in {**image, **torch}.items())
    assert torch["torch"][0] == "2.13.0+cpu"
    assert list(torch) == ["torch"] and "torch" not in image
    assert {"rich", "boto3", "azure-storage-blob", "azure-identity", "matplotlib", "numpy", "sympy"} <= set(image)
    assert not {"pulumi", "pydantic", "ansible-core", "pytest"} & set(image)
    monkeypatch.setattr(lock, "IMAGE_LOCK", tmp_path / "requirements.lock")
    monkeypatch.setattr(lock, "IMAGE_TORCH_LOCK", tmp_path / "requirements-torch-cpu.lock")
    assert lock.main(["image"]) == 0
    for name in ("requirements.lock", "requirements-torch-cpu.lock"):
        assert (tmp_path / name).read_text() == (ROOT / "workloads" / name).read_text(), name
