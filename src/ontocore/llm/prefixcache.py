"""Evaluated prompt prefixes kept on disk, so a new process does not evaluate the same prefix again.

The local model (llm.LocalChat) evaluates a prompt's stable prefix (its system turn: instructions, tool schemas,
examples, the ontology's view) once; the model's state right after that prefix is saved here. The next process
that sends a prompt starting with the same tokens loads the state (a fraction of a second) instead of
evaluating them again (about 95 tokens/s on two cores).

Key: sha256 of (the model's identity, the llama.cpp build and context settings, the exact prefix tokens). The
tokens hold the whole prefix text (instructions, examples, the ontology's view), so any change to the model file,
the prompt files or the ontology's view gives another key; a stale state is never loaded, it ages out.

Files: `<cache dir>/prefix-states/<key>.state` (cache dir: $ONTOBUILD_CACHE, else $XDG_CACHE_HOME/ontobuild, else
~/.cache/ontobuild; or the folder $ONTOBUILD_PREFIX_CACHE_DIR), written atomically (temporary file, fsync, rename). Each file carries its key, its tokens and a
sha256 of its content; a file that does not verify is ignored with a log line and removed, never an error. The
folder is bounded (ONTOBUILD_PREFIX_CACHE_MB, default 2048; 0 turns the disk cache off): the least recently used
states are removed first. The last few states also stay in memory (a conversation's rewrite call and the
answerer's calls take turns without evaluating either prefix again)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import threading
import time
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger(__name__)

FORMAT = 1
MAGIC = b"ONTOPFX1"
SUFFIX = ".state"
DEFAULT_MAX_MB = 2048
RAM_ENTRIES = 2
STALE_TMP_SECONDS = 3600.0


@dataclass(frozen=True)
class PrefixState:
    """The model's state after evaluating `tokens` (llama.cpp's opaque state bytes)."""

    key: str
    tokens: tuple[int, ...]
    data: bytes


def tokens_bytes(tokens: Sequence[int]) -> bytes:
    a = array("i", [int(t) for t in tokens])
    if a.itemsize != 4:  # pragma: no cover - every supported platform has 4-byte C ints
        raise RuntimeError("unexpected C int size")
    if struct.pack("=i", 1) != struct.pack("<i", 1):  # pragma: no cover - big-endian machine
        a.byteswap()
    return a.tobytes()


def prefix_key(model_identity: str, settings: dict[str, Any], tokens: Sequence[int]) -> str:
    """The cache key: sha256 of the model's identity, the settings a state depends on (llama.cpp build, context
    size, KV cache types) and the exact prefix tokens."""
    h = hashlib.sha256()
    head = json.dumps({"format": FORMAT, "model": model_identity, "settings": settings}, sort_keys=True)
    h.update(head.encode("utf-8"))
    h.update(b"\0")
    h.update(tokens_bytes(tokens))
    return h.hexdigest()


def default_dir() -> Path:
    """$ONTOBUILD_PREFIX_CACHE_DIR, else `prefix-states` in the cache folder of the embedded model."""
    if os.environ.get("ONTOBUILD_PREFIX_CACHE_DIR"):
        return Path(os.environ["ONTOBUILD_PREFIX_CACHE_DIR"]).expanduser()
    from ..folders import cache_dir

    return cache_dir() / "prefix-states"


def max_bytes_setting() -> int:
    """ONTOBUILD_PREFIX_CACHE_MB (default 2048 MB; 0: no disk cache)."""
    raw = (os.environ.get("ONTOBUILD_PREFIX_CACHE_MB") or "").strip()
    if not raw:
        return DEFAULT_MAX_MB << 20
    try:
        mb = float(raw)
    except ValueError:
        log.warning("ONTOBUILD_PREFIX_CACHE_MB=%r is not a number; using %d MB", raw, DEFAULT_MAX_MB)
        return DEFAULT_MAX_MB << 20
    return max(0, int(mb * (1 << 20)))


class PrefixCache:
    """States of evaluated prompt prefixes: the last few in memory, all of them on disk (bounded)."""

    def __init__(self, directory: str | Path | None = None, max_bytes: int | None = None,
                 ram_entries: int = RAM_ENTRIES) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        self.max_bytes = max_bytes_setting() if max_bytes is None else max(0, int(max_bytes))
        self.ram_entries = max(0, ram_entries)
        self._ram: OrderedDict[str, PrefixState] = OrderedDict()
        self._lock = threading.Lock()
        self.hits_ram = self.hits_disk = self.misses = self.saved = self.corrupt = 0

    @property
    def on_disk(self) -> bool:
        return self.max_bytes > 0

    def path_for(self, key: str) -> Path:
        return self.directory / f"{key}{SUFFIX}"

    # ---- reading ---------------------------------------------------------------------------------------
    def get(self, key: str, tokens: Sequence[int]) -> PrefixState | None:
        """The state saved under `key` for exactly these tokens, from memory or disk; None when there is none or
        the file does not verify (then it is removed, with a log line)."""
        with self._lock:
            state = self._ram.get(key)
            if state is not None:
                self._ram.move_to_end(key)
        if state is not None and state.tokens == tuple(tokens):
            self.hits_ram += 1
            return state
        if self.on_disk:
            state = self._read(key, tokens)
            if state is not None:
                self.hits_disk += 1
                self._remember(state)
                return state
        self.misses += 1
        return None

    def _read(self, key: str, tokens: Sequence[int]) -> PrefixState | None:
        path = self.path_for(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            log.warning("prefix cache: cannot read %s (%s); evaluating the prefix instead", path, e)
            return None
        try:
            state = decode(raw, key, tokens)
        except ValueError as e:
            self.corrupt += 1
            log.warning("prefix cache: ignoring damaged file %s (%s); it is removed", path, e)
            try:
                path.unlink()
            except OSError:
                pass
            return None
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return state

    # ---- writing ---------------------------------------------------------------------------------------
    def put(self, state: PrefixState) -> None:
        """Keep `state` in memory and write it to disk (atomically), then keep the folder within its bound.
        A failure to write is logged, never raised: the cache only saves time."""
        self._remember(state)
        if not self.on_disk:
            return
        blob = encode(state)
        if len(blob) > self.max_bytes:
            log.info("prefix cache: a state of %d MB exceeds the cache bound; not written", len(blob) >> 20)
            return
        try:
            atomic_write(self.path_for(state.key), blob)
        except OSError as e:
            log.warning("prefix cache: cannot write %s (%s)", self.path_for(state.key), e)
            return
        self.saved += 1
        self.evict(keep=state.key)

    def discard(self, key: str) -> None:
        """Forget a state the model refused (another llama.cpp build wrote it): memory and disk."""
        with self._lock:
            self._ram.pop(key, None)
        self.corrupt += 1
        try:
            self.path_for(key).unlink()
            log.warning("prefix cache: removed %s, which the model could not load", self.path_for(key).name)
        except OSError:
            pass

    def _remember(self, state: PrefixState) -> None:
        if not self.ram_entries:
            return
        with self._lock:
            self._ram[state.key] = state
            self._ram.move_to_end(state.key)
            while len(self._ram) > self.ram_entries:
                self._ram.popitem(last=False)

    def evict(self, keep: str | None = None) -> list[Path]:
        """Remove the least recently used states until the folder holds at most `max_bytes`; also temporary
        files older than an hour (left by an interrupted write). Returns the removed files."""
        removed: list[Path] = []
        try:
            entries = list(os.scandir(self.directory))
        except OSError:
            return removed
        now = time.time()
        files = []
        for e in entries:
            try:
                st = e.stat()
            except OSError:
                continue
            if ".tmp" in e.name:
                if now - st.st_mtime > STALE_TMP_SECONDS:
                    removed.append(Path(e.path))
                continue
            if e.name.endswith(SUFFIX):
                files.append((st.st_mtime, st.st_size, e.name, Path(e.path)))
        total = sum(f[1] for f in files)
        for mtime, size, name, path in sorted(files):
            if total <= self.max_bytes:
                break
            if keep and name == f"{keep}{SUFFIX}":
                continue
            removed.append(path)
            total -= size
        for path in removed:
            try:
                path.unlink()
                log.info("prefix cache: removed %s", path.name)
            except OSError:
                pass
        return removed

    def stats(self) -> dict[str, int]:
        return {"hits_memory": self.hits_ram, "hits_disk": self.hits_disk, "misses": self.misses,
                "saved": self.saved, "damaged": self.corrupt}


def encode(state: PrefixState) -> bytes:
    """MAGIC, header length (4 bytes little-endian), JSON header, tokens (int32 little-endian), state bytes.
    The header holds the key, the token count, the state's size and the sha256 of tokens + state."""
    tok = tokens_bytes(state.tokens)
    digest = hashlib.sha256(tok)
    digest.update(state.data)
    header = json.dumps({"format": FORMAT, "key": state.key, "n_tokens": len(state.tokens),
                         "state_bytes": len(state.data), "sha256": digest.hexdigest()}, sort_keys=True).encode()
    return b"".join([MAGIC, struct.pack("<I", len(header)), header, tok, state.data])


def decode(raw: bytes, key: str, tokens: Sequence[int] | None = None) -> PrefixState:
    """The state in a file's bytes; ValueError saying what is wrong when it does not verify."""
    if len(raw) < len(MAGIC) + 4 or raw[:len(MAGIC)] != MAGIC:
        raise ValueError("not a prefix state file")
    (n,) = struct.unpack("<I", raw[len(MAGIC):len(MAGIC) + 4])
    start = len(MAGIC) + 4
    if n > 1 << 16 or start + n > len(raw):
        raise ValueError("truncated header")
    try:
        header = json.loads(raw[start:start + n].decode("utf-8"))
        n_tokens, state_bytes = int(header["n_tokens"]), int(header["state_bytes"])
        stored_key, digest, fmt = str(header["key"]), str(header["sha256"]), int(header["format"])
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError):
        raise ValueError("unreadable header") from None
    if fmt != FORMAT:
        raise ValueError(f"format {fmt}, expected {FORMAT}")
    if stored_key != key:
        raise ValueError("it holds another key")
    body = start + n
    if n_tokens < 0 or state_bytes < 0 or len(raw) != body + 4 * n_tokens + state_bytes:
        raise ValueError(f"size {len(raw)} does not match its header (truncated write?)")
    tok = raw[body:body + 4 * n_tokens]
    data = raw[body + 4 * n_tokens:]
    h = hashlib.sha256(tok)
    h.update(data)
    if h.hexdigest() != digest:
        raise ValueError("checksum mismatch")
    a = array("i")
    a.frombytes(tok)
    if struct.pack("=i", 1) != struct.pack("<i", 1):  # pragma: no cover - big-endian machine
        a.byteswap()
    found = tuple(a.tolist())
    if tokens is not None and found != tuple(int(t) for t in tokens):
        raise ValueError("its tokens differ from the prompt's")
    return PrefixState(key=key, tokens=found, data=bytes(data))


def atomic_write(path: Path, blob: bytes) -> None:
    """Write `blob` to `path` so that a reader sees the old file or the whole new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    try:
        with open(tmp, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass


# ---- model identity ----------------------------------------------------------------------------------------
_identities: dict[tuple[str, int, int], str] = {}


def model_identity(path: str | Path, known_sha256: str | None = None) -> str:
    """The model file's identity: its sha256 (`known_sha256` for the verified embedded model; otherwise computed
    once and remembered per (path, size, modification time) in `<cache dir>/prefix-states/models.json`)."""
    if known_sha256:
        return f"sha256:{known_sha256}"
    p = Path(path).resolve()
    st = p.stat()
    sig = (str(p), st.st_size, st.st_mtime_ns)
    if sig in _identities:
        return _identities[sig]
    memo_path = default_dir() / "models.json"
    name = f"{sig[0]}|{sig[1]}|{sig[2]}"
    try:
        memo = json.loads(memo_path.read_text("utf-8"))
        if not isinstance(memo, dict):
            memo = {}
    except (OSError, ValueError):
        memo = {}
    ident = memo.get(name)
    if not isinstance(ident, str) or not ident.startswith("sha256:"):
        from ..files import sha256_of

        ident = "sha256:" + sha256_of(p)
        memo[name] = ident
        try:
            atomic_write(memo_path, json.dumps(memo, indent=1, sort_keys=True).encode("utf-8"))
        except OSError as e:
            log.info("prefix cache: cannot remember the model's checksum (%s)", e)
    _identities[sig] = ident
    return ident
