"""Which single-byte Windows code page a text that is not UTF-8 was written in, told from its letters.

Excel and older Windows programs save text in the code page of the user's locale: Windows-1252 in Western Europe and
the Americas, 1250 in Central Europe, 1251 for Cyrillic, 1253 Greek, 1254 Turkish, 1257 Baltic. The same byte is
another letter in each (0xE8 is è, č, и, θ, è, č), so the bytes are decoded in each code page and the decoding is
scored by the letters it gives: +1 for a letter that the languages written in that code page use often, -1 for any
other letter or a control character, -1 for a symbol inside a word (a byte that is a letter elsewhere), -1 for a word
that a Latin code page makes mostly of accented letters (Cyrillic or Greek read as Latin: "Èâàí"), that mixes
Latin letters with Cyrillic or Greek ones (Latin read as Cyrillic: "Crиme"), that has no vowel, and for a capital
after a small letter ("фймЮ": Greek read as Cyrillic). The best score wins, Windows-1252 first
on a tie (the most common, and the one where Western letters mean what they seem); a text no code page scores at
least 0 on is not told (None).

charset-normalizer was weighed and not taken: on short table exports it ties Western text between 1250, 1252 and
1257 and takes Turkish and Baltic text for 1252 (its language model needs more text than a column of names)."""

from __future__ import annotations

import re
import unicodedata

# preferred first on a tie
CODEPAGES = ("cp1252", "cp1250", "cp1251", "cp1254", "cp1257", "cp1253")
NAMES = {"cp1250": "Windows-1250 (cp1250, Central European)", "cp1251": "Windows-1251 (cp1251, Cyrillic)",
         "cp1252": "Windows-1252 (cp1252)", "cp1253": "Windows-1253 (cp1253, Greek)",
         "cp1254": "Windows-1254 (cp1254, Turkish)", "cp1257": "Windows-1257 (cp1257, Baltic)"}

_WESTERN = set("àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿœßš")  # French, German, Spanish, Portuguese, Italian, Nordic, Dutch
_CENTRAL = set("ąćęłńóśźżáäčďéěíňôöřšťúůüýžőűăâîșşţțĺľŕ")  # Polish, Czech, Slovak, Hungarian, Romanian, Slovene
_CYRILLIC = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґ")
_TURKISH = set("çğıöşüâîûéàè")
_BALTIC = set("āčēģīķļņšūžąęėįųõäöüåæøéó")
_GREEK = set("αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊϋΐΰς")
FREQUENT = {"cp1252": _WESTERN, "cp1250": _CENTRAL, "cp1251": _CYRILLIC, "cp1254": _TURKISH, "cp1257": _BALTIC,
            "cp1253": _GREEK}
_LATIN = {"cp1252", "cp1250", "cp1254", "cp1257"}
_LETTERS = re.compile(r"[^\W\d_]+")
_VOWELS = set("aeiouyæœøıаеёиоуыэюяіїєαεηιουω")  # a word of three letters or more has one (after accents go)
# symbols a Windows text often holds (the same bytes in every code page here): neutral, unless inside a word
_SYMBOLS = set("€‚„…†‡‰‹›‘’“”•–—™«»°±²³µ¶·¹º¼½¾×÷§©®¬¢£¥¤¦¨¯´¸ªƒ¿¡\xa0\xad")


def _score(text: str, codepage: str) -> int:
    frequent = FREQUENT[codepage]
    score = 0
    for ch in text:
        if ch < "\x80":
            continue
        if ch.isalpha():
            score += 1 if ch.lower() in frequent else -1
        elif ch not in _SYMBOLS:
            score -= 1  # a control character or a rare symbol
    for word in text.split():
        letters = [c for c in word if c.isalpha()]
        high = sum(c >= "\x80" for c in letters)
        if not high:
            continue
        # a symbol between two letters: a byte that is a letter in another code page ("jab³ko")
        score -= sum(1 for a, c, b in zip(word, word[1:], word[2:]) if c in _SYMBOLS and a.isalpha() and b.isalpha())
        if codepage in _LATIN and len(letters) >= 3 and high * 2 > len(letters):
            score -= 1  # mostly accented letters: another script read as Latin
        if codepage not in _LATIN and high < len(letters):
            score -= 1  # Latin letters beside Cyrillic or Greek ones: Latin read as another script
    for word in _LETTERS.findall(text):
        if word.isascii():
            continue
        if len(word) >= 3 and not any(_base(c) in _VOWELS for c in word):
            score -= 1  # no vowel: a word of another script read in this one ("προϊόν" read as Cyrillic)
        # a capital after a small letter: accented small letters of another script read as capitals ("фймЮ")
        score -= sum(1 for a, b in zip(word, word[1:]) if a.islower() and b.isupper() and b >= "\x80")
    return score


def _base(letter: str) -> str:
    """A letter without its accents, lower-cased (é -> e, ώ -> ω)."""
    return unicodedata.normalize("NFD", letter.lower())[0]


def guess_codepage(raw: bytes) -> str | None:
    """The code page (of CODEPAGES) whose decoding of `raw` reads best, or None when none decodes it with a score of at
    least 0 (not text in any of them)."""
    best: tuple[int, int, str] | None = None
    for rank, codepage in enumerate(CODEPAGES):
        try:
            text = raw.decode(codepage)
        except UnicodeDecodeError:
            continue
        candidate = (_score(text, codepage), -rank, codepage)
        if best is None or candidate > best:
            best = candidate
    return best[2] if best is not None and best[0] >= 0 else None


__all__ = ["CODEPAGES", "NAMES", "guess_codepage"]
