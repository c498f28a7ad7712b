"""Outcome folders claimed atomically: a second run into the same --out is refused while the first runs, never
redirected to another name; --out . and a symbolic link are refused before any work; nothing half-written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ontobuild.errors import InputError
from ontobuild.outcome import outcome_folder, plan_outcome


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
