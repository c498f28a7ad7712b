"""Bad inputs to `ontobuild FILE...`: one readable paragraph, exit code 2, no traceback, nothing written.
These fail before any model is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ontobuild.cli import main


@pytest.mark.parametrize("name,content,message", [
    ("broken.json", b'{"a": [1, 2,,]}', "is not valid JSON: Expecting value at line 1, column 13"),
    ("empty.json", b"   \n", "is empty"),
    ("blob.json", b"\x00\x01\x02binary", "looks like a binary file"),
    ("odd.txt", b"caf\x81\x8d", "is not text in UTF-8, UTF-16 or a Windows code page"),  # no code page reads it
    ("scalar.json", b"42", "holds no data"),
])
def test_bad_input_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [str(bad), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [str(tmp_path / "nope.json"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "no such file" in result.output and "Traceback" not in result.output
