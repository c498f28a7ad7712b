"""Text inputs in the encoding they were written in: the Windows code page its letters tell (1250, 1251, 1252, 1253,
1254, 1257), a file whose lines mix UTF-8 and a code page read line by line (never UTF-8 turned into two wrong
characters per letter), a line that mixes both within itself refused by its number, and `--encoding` for the user to
say it. Small made-up tables of several domains and languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ontobuild.cli import main as build_main
from ontobuild.inputs.readers import load_inputs
from ontobuild.inputs.tabular import iter_table, read_table
from ontocore.errors import InputError

MIXED = [
    # a bakery's price list: rows typed in a UTF-8 editor, then rows appended by a Windows program (cp1252)
    ("pastries.csv", [("name,price_eur,note", "utf-8"), ("Crème brûlée,4.5,vanilla", "utf-8"),
                      ("Café noir,2,strong", "cp1252"), ("Mille-feuille,3.8,layered", "utf-8"),
                      ("Gâteau à l'orange,5,seasonal", "cp1252")], "cp1252"),
    # a Central European tool hire: UTF-8 rows and cp1250 rows
    ("tools.csv", [("tool,depot", "utf-8"), ("Wiertarka udarowa,Łódź", "cp1250"), ("Píla řetězová,Brno", "utf-8"),
                   ("Szlifierka kątowa,Kraków", "cp1250")], "cp1250"),
]


def write_lines(path: Path, lines: list[tuple[str, str]]) -> list[str]:
    path.write_bytes(b"".join((text + "\n").encode(encoding) for text, encoding in lines))
    return [text for text, _ in lines]


@pytest.mark.parametrize("name,lines,codepage", MIXED)
def test_a_file_whose_lines_mix_utf8_and_a_code_page_is_read_line_by_line(tmp_path: Path, name: str, lines: list,
                                                                          codepage: str) -> None:
    path = tmp_path / name
    texts = write_lines(path, lines)
    header = texts[0].split(",")
    expected = [dict(zip(header, t.split(","))) for t in texts[1:]]
    warnings: list[str] = []
    encodings: dict[str, str] = {}
    assert read_table(path, warnings, encodings) == expected
    assert encodings == {name: f"utf-8+{codepage}"}
    assert len(warnings) == 1 and "UTF-8" in warnings[0] and codepage in warnings[0]
    streamed_warnings: list[str] = []
    assert list(iter_table(path, streamed_warnings)) == expected  # the streamed reader reads the same
    assert streamed_warnings == warnings


def test_lines_after_the_first_megabyte_of_a_streamed_table_are_read_in_their_own_encoding(tmp_path: Path) -> None:
    path = tmp_path / "orders.csv"
    body = "".join(f"{i},Kaffee mit Milch,2\n" for i in range(60_000))  # more than a megabyte of UTF-8 first
    path.write_bytes(("order,item,qty\n" + body).encode("utf-8") + "60000,Brötchen mit Käse,3\n".encode("cp1252"))
    warnings: list[str] = []
    rows = list(iter_table(path, warnings))
    assert rows[-1] == {"order": "60000", "item": "Brötchen mit Käse", "qty": "3"}
    assert len(rows) == 60_001 and any("cp1252" in w for w in warnings)


def test_a_line_that_mixes_both_encodings_within_itself_is_refused_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "menu.csv"
    path.write_bytes("dish,origin\nCrème brûlée,France\n".encode("utf-8") + "Paëlla ".encode("cp1252") +
                     "à la crème,Spain\n".encode("utf-8"))
    with pytest.raises(InputError, match="line 3 mixes UTF-8 and Windows-1252"):
        read_table(path)


@pytest.mark.parametrize("codepage,text", [
    ("cp1250", "imię,miasto\nŁucja Wąsik,Łódź\nJiří Dvořák,Plzeň\nŽofie Šťastná,Ústí\n"),
    ("cp1251", "имя,город\nАнна Волкова,Самара\nПётр Ильин,Тверь\n"),
    ("cp1252", "producto,origen\nJamón serrano,Teruel\nQueijo da Serra,Viseu\nSmørrebrød,Århus\n"),
    ("cp1253", "προϊόν,τιμή\nΚασέρι,12\nΦέτα Ηπείρου,9\n"),
    ("cp1254", "ürün,şehir\nÇiğ börek,Eskişehir\nKüçük simit,Ağrı\n"),
    ("cp1257", "prekė,miestas\nŠakotis,Šiauliai\nŪkininkų sūris,Kėdainiai\n"),
])
def test_a_code_page_is_told_by_its_letters(tmp_path: Path, codepage: str, text: str) -> None:
    path = tmp_path / "goods.csv"
    path.write_bytes(text.encode(codepage))
    encodings: dict[str, str] = {}
    rows = read_table(path, [], encodings)
    assert encodings == {"goods.csv": codepage}
    lines = text.splitlines()
    assert rows == [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:]]
    assert list(iter_table(path)) == rows  # a streamed table is read alike


def test_the_encoding_the_user_names_is_the_one_used(tmp_path: Path) -> None:
    from ontocore.files import check_encoding

    path = tmp_path / "orchards.csv"
    path.write_bytes("orchard,variety\nSad Őszi,Ősz\nKert,Győri\n".encode("cp1250"))  # ő: a Hungarian letter
    inputs = load_inputs([path], encoding=check_encoding("cp1250"))
    assert inputs.json_docs[0][1][0] == {"orchard": "Sad Őszi", "variety": "Ősz"} and inputs.encodings == {}
    assert check_encoding("UTF8") == "utf-8-sig" and check_encoding("latin_1") == "iso8859-1"
    with pytest.raises(InputError, match="not an encoding"):
        check_encoding("klingon-8")
    with pytest.raises(InputError, match="line 2 has the byte 0xd5"):
        load_inputs([path], encoding="utf-8")
    r = CliRunner().invoke(build_main, ["--dry-run", "--json", "--encoding", "cp1250", str(path)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(build_main, ["--dry-run", "--encoding", "klingon-8", str(path)])
    assert r.exit_code == 2 and "not an encoding" in r.stderr


def test_a_mixed_file_is_listed_in_a_builds_inputs(tmp_path: Path) -> None:
    path = tmp_path / "pastries.csv"
    write_lines(path, MIXED[0][1])
    r = CliRunner().invoke(build_main, ["--dry-run", "--json", str(path)])
    assert r.exit_code == 0, r.output
    inputs = json.loads(r.stdout)["inputs"]  # what stats.json of a build says too
    assert inputs["encodings"] == {"pastries.csv": "utf-8+cp1252"} and "two encodings" in inputs["warnings"][0]
