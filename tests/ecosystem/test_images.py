"""The two training images: the same torch, every image pinned by digest with its tag beside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = (ROOT / "workloads" / "Dockerfile", ROOT / "workloads" / "Dockerfile.cpu")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def torch_version(dockerfile: Path) -> str:
    text = dockerfile.read_text()
    base = re.search(r"^FROM pytorch/pytorch:(\d+\.\d+\.\d+)-", text, re.M)
    if base:
        return base[1]
    (pin,) = re.findall(r'"torch==(\d+\.\d+\.\d+)"', text)
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
