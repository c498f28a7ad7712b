"""The prefix state cache: its key, invalidation, damaged files, atomic writes and its bound (no model needed)."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from ontocore.llm import prefixcache
from ontocore.llm.prefixcache import PrefixCache, PrefixState, atomic_write, decode, encode, prefix_key

SETTINGS = {"llama_cpp": "0.3.x", "n_ctx": 8192, "type_k": "1", "type_v": "1"}
TOKENS = [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645]


def _state(tokens=TOKENS, model="sha256:aa", settings=SETTINGS, size=5000) -> PrefixState:
    key = prefix_key(model, settings, tokens)
    return PrefixState(key, tuple(tokens), bytes((i * 7) % 256 for i in range(size)))


def test_key_is_stable_and_depends_on_model_settings_and_every_token() -> None:
    key = prefix_key("sha256:aa", SETTINGS, TOKENS)
    assert key == prefix_key("sha256:aa", dict(reversed(list(SETTINGS.items()))), list(TOKENS))
    assert len(key) == 64 and int(key, 16) >= 0
    others = {prefix_key("sha256:bb", SETTINGS, TOKENS),  # another model file
              prefix_key("sha256:aa", {**SETTINGS, "n_ctx": 4096}, TOKENS),  # another context
              prefix_key("sha256:aa", {**SETTINGS, "llama_cpp": "0.4"}, TOKENS),  # another llama.cpp build
              prefix_key("sha256:aa", SETTINGS, TOKENS[:-1]),  # a shorter prefix
              prefix_key("sha256:aa", SETTINGS, TOKENS[:3] + [1] + TOKENS[4:])}  # one token changed (the view)
    assert key not in others and len(others) == 5


def test_a_changed_prefix_never_loads_the_old_state(tmp_path: Path) -> None:
    cache = PrefixCache(tmp_path, max_bytes=10 << 20)
    cache.put(_state())
    changed = TOKENS[:5] + [99] + TOKENS[6:]  # e.g. the ontology's view changed: other tokens, another key
    fresh = PrefixCache(tmp_path, max_bytes=10 << 20)
    assert fresh.get(prefix_key("sha256:aa", SETTINGS, changed), changed) is None
    assert fresh.get(prefix_key("sha256:bb", SETTINGS, TOKENS), TOKENS) is None  # the model file changed
    assert fresh.get(_state().key, TOKENS) == _state()  # the unchanged prefix still loads


def test_round_trip_through_disk_and_memory(tmp_path: Path) -> None:
    state = _state()
    cache = PrefixCache(tmp_path, max_bytes=10 << 20)
    cache.put(state)
    assert cache.path_for(state.key).is_file() and cache.saved == 1
    assert cache.get(state.key, TOKENS) == state and cache.hits_ram == 1
    other = PrefixCache(tmp_path, max_bytes=10 << 20)  # a new process: from disk
    assert other.get(state.key, TOKENS) == state and other.hits_disk == 1
    assert other.get(state.key, TOKENS) == state and other.hits_ram == 1  # then from memory
    assert decode(encode(state), state.key, TOKENS) == state


def test_memory_only_when_the_bound_is_zero(tmp_path: Path) -> None:
    cache = PrefixCache(tmp_path / "c", max_bytes=0)
    cache.put(_state())
    assert not (tmp_path / "c").exists()
    assert cache.get(_state().key, TOKENS) == _state()


def test_bound_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("ONTOBUILD_PREFIX_CACHE_MB", "0")
    assert prefixcache.max_bytes_setting() == 0
    monkeypatch.setenv("ONTOBUILD_PREFIX_CACHE_MB", "3")
    assert prefixcache.max_bytes_setting() == 3 << 20
    monkeypatch.setenv("ONTOBUILD_PREFIX_CACHE_MB", "lots")
    assert prefixcache.max_bytes_setting() == prefixcache.DEFAULT_MAX_MB << 20


@pytest.mark.parametrize("damage", ["truncate", "flip", "magic", "header", "empty", "other_key"])
def test_a_damaged_file_is_ignored_logged_and_removed(tmp_path: Path, caplog, damage: str) -> None:
    state = _state()
    PrefixCache(tmp_path, max_bytes=10 << 20).put(state)
    path = PrefixCache(tmp_path).path_for(state.key)
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[:len(raw) - 100]
    elif damage == "flip":
        raw[-10] ^= 0xFF
    elif damage == "magic":
        raw[:4] = b"JUNK"
    elif damage == "header":
        raw[12:20] = b"\xff" * 8
    elif damage == "empty":
        raw = bytearray()
    elif damage == "other_key":
        other = _state(tokens=TOKENS[:-1])
        raw = bytearray(encode(other))
    path.write_bytes(bytes(raw))
    cache = PrefixCache(tmp_path, max_bytes=10 << 20)
    with caplog.at_level(logging.WARNING, logger="ontocore.llm.prefixcache"):
        assert cache.get(state.key, TOKENS) is None
    assert cache.corrupt == 1 and cache.misses == 1
    assert any("damaged" in r.getMessage() for r in caplog.records)
    assert not path.exists()


def test_tokens_must_match_exactly(tmp_path: Path) -> None:
    state = _state()
    with pytest.raises(ValueError, match="tokens differ"):
        decode(encode(state), state.key, TOKENS[:-1] + [7])


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "x.state"
    atomic_write(target, b"old content")

    def failing_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, b"new content that never lands")
    assert target.read_bytes() == b"old content"
    assert [p.name for p in tmp_path.iterdir()] == ["x.state"]  # no temporary file left


def test_a_failed_write_is_logged_not_raised(tmp_path: Path, monkeypatch, caplog) -> None:
    def failing(path: Path, blob: bytes) -> None:
        raise OSError("read-only file system")

    monkeypatch.setattr(prefixcache, "atomic_write", failing)
    cache = PrefixCache(tmp_path, max_bytes=10 << 20)
    with caplog.at_level(logging.WARNING, logger="ontocore.llm.prefixcache"):
        cache.put(_state())
    assert cache.saved == 0 and "cannot write" in caplog.text
    assert cache.get(_state().key, TOKENS) == _state()  # still kept in memory


def test_the_folder_stays_within_its_bound_least_recently_used_first(tmp_path: Path) -> None:
    states = [_state(tokens=TOKENS + [i], size=4000) for i in range(4)]
    one = len(encode(states[0]))
    cache = PrefixCache(tmp_path, max_bytes=3 * one + 10, ram_entries=0)
    now = time.time()
    for i, s in enumerate(states[:3]):
        cache.put(s)
        os.utime(cache.path_for(s.key), (now - 100 + i, now - 100 + i))
    assert cache.get(states[0].key, states[0].tokens) is not None  # used again: now the most recent
    cache.put(states[3])  # over the bound: the least recently used (states[1]) goes
    names = {p.name for p in tmp_path.iterdir()}
    assert cache.path_for(states[1].key).name not in names
    assert {cache.path_for(s.key).name for s in (states[0], states[2], states[3])} <= names
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= cache.max_bytes


def test_stale_temporary_files_are_cleaned(tmp_path: Path) -> None:
    stale = tmp_path / "abc.state.tmp123.1"
    stale.write_bytes(b"half")
    old = time.time() - 2 * prefixcache.STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    fresh = tmp_path / "def.state.tmp124.1"  # another process may be writing it now
    fresh.write_bytes(b"half")
    PrefixCache(tmp_path, max_bytes=10 << 20).evict()
    assert not stale.exists() and fresh.exists()


def test_a_state_larger_than_the_bound_is_not_written(tmp_path: Path) -> None:
    cache = PrefixCache(tmp_path, max_bytes=1000)
    cache.put(_state(size=5000))
    assert not any(tmp_path.glob("*.state")) and cache.get(_state().key, TOKENS) is not None


def test_model_identity_is_computed_once_per_file_version(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ONTOBUILD_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "m.gguf"
    model.write_bytes(b"weights v1")
    first = prefixcache.model_identity(model)
    assert first.startswith("sha256:") and prefixcache.model_identity(model) == first
    assert (tmp_path / "cache" / "prefix-states" / "models.json").is_file()
    model.write_bytes(b"weights v2, longer")
    assert prefixcache.model_identity(model) != first
    assert prefixcache.model_identity(model, known_sha256="ab12") == "sha256:ab12"
