"""What a company's reviewer asks for (issue 48, item 8): a LICENSE, package metadata with an SPDX licence and
classifiers, notices that name files that exist and claim only the checks the code makes, install hints that name the
local checkout (no package of ours is on the index), and every environment variable the code reads in both commands'
--help and in the README."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def test_licence_and_package_metadata() -> None:
    assert (ROOT / "LICENSE").read_text("utf-8").startswith("MIT License")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["license"] == "MIT" and "LICENSE" in project["license-files"]
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # the SPDX expression says it


def test_notices_name_files_that_exist_and_only_the_checks_made() -> None:
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text("utf-8")
    for path in re.findall(r"`((?:src|tests|constraints)/[^`]+)`", notices):
        assert list(ROOT.glob(path)), path
    from ontocore import embeddings
    from ontocore.llm import localmodel

    assert localmodel.SHA256 in notices and embeddings.WEIGHTS_SHA256 in notices
    crosslingual = (ROOT / "src" / "ontouse" / "language" / "crosslingual.py").read_text("utf-8")
    assert "sha256" not in crosslingual.lower() and "not by this code" in notices  # no claim the code does not make
    for library in ("pypdf", "python-docx", "python-pptx"):
        assert library in notices


def test_install_hints_name_the_local_checkout() -> None:
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text("utf-8")
        assert not re.search(r"pip install ['\"]?ontobuild\[", text), path
    from ontocore.llm.localmodel import INSTALL_HINT

    assert "pip install -e '.[local]'" in INSTALL_HINT


def test_every_environment_variable_is_in_help_and_readme() -> None:
    from ontobuild.cli import main as build_main
    from ontocore.cliutil import ENVIRONMENT
    from ontouse.cli import main as ask_main

    read = set()
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text("utf-8")
        read |= set(re.findall(r"environ(?:\.get)?[\[(]\s*\"([A-Z][A-Z0-9_]+)\"", text))
        read |= set(re.findall(r"_env_number\(\s*\"([A-Z][A-Z0-9_]+)\"", text))
        read |= set(re.findall(r"^ENV = \"([A-Z][A-Z0-9_]+)\"", text, flags=re.M))
    read -= {"XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE"}  # other tools' own variables, named in ONTOBUILD_CACHE's text
    assert read <= set(ENVIRONMENT), sorted(read - set(ENVIRONMENT))
    readme = (ROOT / "README.md").read_text("utf-8")
    for command in (build_main, ask_main):
        out = CliRunner().invoke(command, ["--help"]).output
        for name in ENVIRONMENT:
            assert name in out, (command.name, name)
    for name in ENVIRONMENT:
        assert name in readme, name
