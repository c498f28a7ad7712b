"""Kept prompt prefixes on the real embedded model (marked `live`): reuse within a process, a saved state loaded by
another model instance (as a new process would), and the same reply either way. No timings are asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.live

# a made-up stable start (instructions and a small schema), long enough to be kept (>= 256 tokens)
SYSTEM = ("You answer questions about a small orchard database with one SQLite query in a ```sql block.\n\n" +
          "\n".join(f"CREATE TABLE Tree{i} ( -- trees of row {i}\n  iri TEXT PRIMARY KEY,\n  variety TEXT, -- 'Elstar', "
                    f"'Topaz'\n  plantedYear INTEGER, -- 20{10 + i}\n  heightM REAL -- 3.{i}\n);" for i in range(12)))


def _model(cache_dir: Path):
    from ontocore.errors import ModelUnavailable
    from ontocore.llm import LocalChat
    from ontocore.llm.prefixcache import PrefixCache

    try:
        return LocalChat(n_ctx=2048, prefix_cache=PrefixCache(cache_dir, max_bytes=1 << 30))
    except ModelUnavailable as e:
        pytest.skip(str(e))


def _ask(model, question: str):
    return model.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}], tools=None,
                      max_tokens=40)


def test_a_kept_prefix_is_evaluated_once_and_loaded_by_a_new_instance(tmp_path: Path) -> None:
    first = _model(tmp_path)
    first.keep_prefix(SYSTEM)
    a = _ask(first, "Which trees of row 3 are taller than 3 m?")
    assert a.prompt_evaluated == a.prompt_tokens and a.prompt_reused == 0  # nothing kept yet
    assert list(tmp_path.glob("*.state")) and first.prefix_cache.saved == 1
    b = _ask(first, "How many trees were planted in 2015?")
    assert b.prompt_reused >= 256 and b.prompt_evaluated < 40  # only the question is evaluated
    assert first.usage.prompt_evaluated == a.prompt_evaluated + b.prompt_evaluated
    del first

    second = _model(tmp_path)  # a new model instance with an empty context, as in a new process
    second.keep_prefix(SYSTEM)
    c = _ask(second, "Which trees of row 3 are taller than 3 m?")
    assert c.prompt_loaded >= 256 and c.prompt_reused == c.prompt_loaded and second.prefix_cache.hits_disk == 1
    assert c.prompt_evaluated == c.prompt_tokens - c.prompt_loaded
    assert c.content == a.content  # the loaded state gives the same greedy reply as evaluating the prompt


def test_a_damaged_state_file_is_evaluated_again(tmp_path: Path) -> None:
    model = _model(tmp_path)
    model.keep_prefix(SYSTEM)
    a = _ask(model, "List the varieties of row 1.")
    (path,) = tmp_path.glob("*.state")
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    del model
    again = _model(tmp_path)
    again.keep_prefix(SYSTEM)
    b = _ask(again, "List the varieties of row 1.")
    assert b.prompt_loaded == 0 and b.prompt_evaluated == b.prompt_tokens and again.prefix_cache.corrupt == 1
    assert b.content == a.content and len(list(tmp_path.glob("*.state"))) == 1  # saved again, whole
