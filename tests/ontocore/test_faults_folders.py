"""Outcome folders claimed atomically: a second run into the same --out is refused while the first runs, never
redirected to another name; --out . and a symbolic link are refused before any work; nothing half-written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontocore.folders import outcome_folder, plan_outcome


def test_a_second_run_into_the_same_out_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with outcome_folder(out=out) as first:
        (first.path / "a.txt").write_text("first")
        with pytest.raises(InputError, match="being written by another run"):
            plan_outcome(out=out)
    assert (out / "a.txt").read_text() == "first"
    assert not list(tmp_path.glob(".out.*")) and not (tmp_path / "out_2").exists()
    with pytest.raises(InputError, match="not empty"):
        plan_outcome(out=out)


def test_a_stale_claim_is_taken_over(tmp_path: Path) -> None:
    (tmp_path / ".out.claim").write_text("999999999")
    with outcome_folder(out=tmp_path / "out") as folder:
        (folder.path / "b.txt").write_text("ok")
    assert (tmp_path / "out" / "b.txt").is_file() and not (tmp_path / ".out.claim").exists()


def test_a_failed_run_leaves_no_claim_and_no_folder(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        with outcome_folder(out=tmp_path / "out"):
            raise RuntimeError("boom")
    assert sorted(os.listdir(tmp_path)) == []


def test_out_dot_and_symlinks_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="current folder"):
        plan_outcome(out=".", force=True)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(InputError, match="symbolic link"):
        plan_outcome(out="link")
    assert sorted(os.listdir(tmp_path)) == ["link", "real"]


TTL_A = '<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "alpha" .\n'
TTL_B = '<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "bravo" .\n'


def test_a_store_is_stale_by_content_not_by_size_and_time(tmp_path: Path) -> None:
    from ontouse.storage.persist import open_persisted

    src = tmp_path / "g.ttl"
    src.write_text(TTL_A)
    stat = src.stat()
    graph = open_persisted([src], tmp_path / "store")
    assert {str(o) for o in graph.objects()} == {"alpha"}
    del graph
    src.write_text(TTL_B)  # same size
    os.utime(src, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same modification time
    assert {str(o) for o in open_persisted([src], tmp_path / "store").objects()} == {"bravo"}


def test_store_path_errors_are_clear(tmp_path: Path) -> None:
    from ontouse.storage.persist import open_persisted

    src = tmp_path / "g.ttl"
    src.write_text(TTL_A)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        open_persisted([src], tmp_path / "afile")


def test_concurrent_first_runs_on_one_store_all_succeed(tmp_path: Path) -> None:
    import subprocess
    import sys

    src = tmp_path / "g.ttl"
    src.write_text(TTL_A)
    code = ("import sys; from ontouse.storage.persist import open_persisted; "
            "g = open_persisted([sys.argv[1]], sys.argv[2]); print(sorted(str(o) for o in g.objects()))")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(src), str(tmp_path / "store")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [r.communicate(timeout=120) for r in runs]
    assert all(r.returncode == 0 for r in runs), [o[1][-300:] for o in outs]
    assert all(o[0].strip() == "['alpha']" for o in outs)


def test_an_input_over_the_size_limit_is_refused_before_any_work(tmp_path: Path) -> None:
    import subprocess
    import sys

    big = tmp_path / "big.json"
    big.write_text("[" + ",".join(['{"a": 1}'] * 20000) + "]")  # about 0.2 MB
    out = subprocess.run([sys.executable, "-m", "ontobuild", str(big), "--max-input-mb", "0.1", "--out",
                          str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "more than the 0.1 MB" in out.stderr and not (tmp_path / "o").exists()


def test_examples_files_are_bounded(tmp_path: Path) -> None:
    """--examples: an oversized file, deep nesting and alias floods are refused with clear messages, quickly."""
    from ontouse.examples import MAX_EXAMPLES_BYTES, Examples

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested too deeply"):
        Examples.load(deep)
    big = tmp_path / "big.yaml"
    big.write_text("- question: a\n  sql: b\n" * (MAX_EXAMPLES_BYTES // 20))
    with pytest.raises(InputError, match="at most"):
        Examples.load(big)
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x]\n" + "".join(f"b{i}: &b{i} [*a, *a]\n" for i in range(1200)))
    with pytest.raises(InputError):
        Examples.load(bomb)


def test_a_short_secret_never_reaches_a_log_line_or_a_traceback(capsys: pytest.CaptureFixture) -> None:
    import logging

    from ontocore.cliutil import setup_logging
    from ontocore.redaction import register_secret

    register_secret("q7z")
    setup_logging(2)
    try:
        raise RuntimeError("server said: bad password q7z")
    except RuntimeError:
        logging.getLogger("ontobuild.test").exception("details")
    err = capsys.readouterr().err
    assert "q7z" not in err and "[redacted]" in err


def test_a_corrupted_store_is_rebuilt_not_served(tmp_path: Path) -> None:
    from ontouse.storage.persist import open_persisted

    src = tmp_path / "g.ttl"
    src.write_text(TTL_A)
    first = open_persisted([src], tmp_path / "store")
    expected = sorted(tuple(map(str, r)) for r in first.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o }"))
    first.close()
    for f in (tmp_path / "store").rglob("*"):
        if f.is_file():
            f.write_bytes(b"\x00garbage" * 16)
    again = open_persisted([src], tmp_path / "store")
    assert sorted(tuple(map(str, r)) for r in again.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o }")) == expected
    again.close()
