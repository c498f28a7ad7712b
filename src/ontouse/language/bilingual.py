"""Bilingual dictionaries: the English translations a well-kept dictionary gives for a word or phrase of another
language.

The dictionaries are FreeDict's (free bilingual dictionaries, each language into English), in the dictd format
that Debian's and Ubuntu's packages dict-freedict-deu-eng, -fra-eng, -spa-eng, -ita-eng, -por-eng and -nld-eng
install into /usr/share/dictd (the folder ONTO_DICTIONARIES names instead, when set). A word is looked up as written
and, when simplemma (a lemmatizer whose data ships in its PyPI package) is installed, in its dictionary form too:
"regadores" as "regador". Nothing is downloaded, and without the dictionaries nothing changes: `open_dictionary`
gives None and translations go on without them.

What it is for (glossary.dictionary_glossary): code proposes the ontology's word that a question's word
translates to, and sets aside a guess of the multilingual embedding model that the dictionary contradicts."""

from __future__ import annotations

import gzip
import logging
import os
import re
import struct
import threading
import zlib
from functools import lru_cache
from pathlib import Path

from ontocore.text import fold

log = logging.getLogger(__name__)

FOLDER = Path("/usr/share/dictd")
ENV = "ONTO_DICTIONARIES"
ISO3 = {"en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld"}  # ISO 639-1 -> -3
_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_NOTE = re.compile(r"^(?:\"|(?:Notes?|Synonyms?|Antonyms?|see|Usage|Example)\s*:)", re.I)
_MARKS = re.compile(r"<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\([^)]*\)")
_NUMBERED = re.compile(r"^\s*\d+\.\s*")


def _number(text: str) -> int:
    """A dictd index number (base 64)."""
    n = 0
    for c in text:
        n = n * 64 + _B64[c]
    return n


class _DictZip:
    """The entries' text of a .dict.dz file, read by its chunks (dictzip's random access) when it has them, else
    decompressed whole once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.whole: bytes | None = None
        self.chunk = 0
        self.starts: list[int] = []  # file offset of each compressed chunk, and the end
        raw = path.read_bytes()[:65536]
        if len(raw) > 12 and raw[:2] == b"\x1f\x8b" and raw[3] & 4:
            xlen = struct.unpack("<H", raw[10:12])[0]
            extra, pos = raw[12:12 + xlen], 0
            while pos + 4 <= len(extra):
                sid, size = extra[pos:pos + 2], struct.unpack("<H", extra[pos + 2:pos + 4])[0]
                body = extra[pos + 4:pos + 4 + size]
                if sid == b"RA" and len(body) >= 6:
                    _, self.chunk, count = struct.unpack("<HHH", body[:6])
                    sizes = struct.unpack(f"<{count}H", body[6:6 + 2 * count])
                    start = 12 + xlen
                    flags = raw[3]
                    if flags & 8:  # file name
                        start = raw.index(b"\0", start) + 1
                    if flags & 16:  # comment
                        start = raw.index(b"\0", start) + 1
                    if flags & 2:  # header CRC
                        start += 2
                    self.starts = [start]
                    for s in sizes:
                        self.starts.append(self.starts[-1] + s)
                pos += 4 + size

    def read(self, offset: int, length: int) -> bytes:
        if not self.starts:
            if self.whole is None:
                self.whole = gzip.decompress(self.path.read_bytes())
            return self.whole[offset:offset + length]
        first, last = offset // self.chunk, (offset + length - 1) // self.chunk
        out = b""
        with self.path.open("rb") as f:
            for i in range(first, min(last, len(self.starts) - 2) + 1):
                f.seek(self.starts[i])
                out += zlib.decompressobj(-15).decompress(f.read(self.starts[i + 1] - self.starts[i]))
        skip = offset - first * self.chunk
        return out[skip:skip + length]


def translations_of(entry: str) -> list[str]:
    """The translations an entry gives, in order, each once: the lines after its headword that are not a note, an
    example, a synonym or a cross-reference, split at commas and semicolons, without part-of-speech, domain and
    other bracketed marks or a sense's number."""
    out: list[str] = []
    for line in entry.splitlines()[1:]:
        text = line.strip()
        if not text or _NOTE.match(text):
            continue
        text = _NUMBERED.sub("", _MARKS.sub(" ", text))
        for part in re.split(r"[,;]", text):
            part = " ".join(part.split()).strip(" .")
            if part and part not in out:
                out.append(part)
    return out


class Dictionary:
    """One dictionary from a language into English."""

    def __init__(self, lang: str, index: Path, data: Path) -> None:
        self.lang = lang
        self.index = index
        self.data = _DictZip(data)
        self._lines: list[str] | None = None
        self._lock = threading.Lock()
        self._known: dict[str, list[str] | None] = {}  # phrase -> what lookup gave (looked up once)

    def _index_lines(self) -> list[str]:
        with self._lock:
            if self._lines is None:
                self._lines = self.index.read_text("utf-8", errors="replace").split("\n")
            return self._lines

    def lookup(self, phrases: list[str]) -> dict[str, list[str] | None]:
        """phrase -> its English translations (None: the dictionary has no entry for it, nor for its dictionary
        form). A word whose dictionary form is another word is read as that word when the dictionary has it
        ("era" as "ser", be, not as the noun "era", an age). One pass over the index for all of them that
        were not looked up before."""
        with self._lock:
            new = [p for p in dict.fromkeys(phrases) if p not in self._known]
        if new:
            try:
                found = self._read(new)
            except (OSError, ValueError, KeyError, zlib.error, struct.error) as e:  # a damaged dictionary: unused
                log.warning("the dictionary %s could not be read (%s); going on without it", self.index.name, e)
                found = {p: None for p in new}
            with self._lock:
                self._known.update(found)
        with self._lock:
            return {p: self._known[p] for p in phrases}

    def _read(self, phrases: list[str]) -> dict[str, list[str] | None]:
        keys = {k for phrase in phrases for k in (fold(phrase), fold(lemma(phrase, self.lang))) if k}
        firsts = {k[0] for k in keys}
        folded: dict[str, str] = {}  # a headword's first letter, folded (most lines are passed over by it alone)
        places: dict[str, list[tuple[int, int]]] = {}
        for line in self._index_lines():
            head = line.lstrip()[:1]
            first = folded.get(head)
            if first is None:
                first = folded[head] = fold(head)
            if first not in firsts:
                continue
            tab = line.find("\t")
            if tab <= 0:
                continue
            key = fold(line[:tab].strip())
            if key in keys:
                parts = line.split("\t")
                if len(parts) >= 3:
                    places.setdefault(key, []).append((_number(parts[1]), _number(parts[2])))
        found: dict[str, list[str] | None] = {}
        for phrase in phrases:
            base = fold(lemma(phrase, self.lang))
            key = base if base in places else fold(phrase)
            if key not in places:
                found[phrase] = None
                continue
            texts: list[str] = []
            for offset, length in places[key]:
                entry = self.data.read(offset, length).decode("utf-8", errors="replace")
                texts += [t for t in translations_of(entry) if t not in texts]
            found[phrase] = texts
        return found


def folder() -> Path:
    return Path(os.environ.get(ENV) or FOLDER)


_OPEN: dict[tuple[str, str], Dictionary | None] = {}
_OPEN_LOCK = threading.Lock()


def open_dictionary(lang: str) -> Dictionary | None:
    """The dictionary from `lang` (ISO 639-1) into English, or None when none is installed."""
    where = folder()
    with _OPEN_LOCK:
        if (lang, str(where)) not in _OPEN:
            name = f"freedict-{ISO3.get(lang, lang)}-eng"
            index, data = where / f"{name}.index", where / f"{name}.dict.dz"
            found = None
            if lang != "en" and index.is_file() and data.is_file():
                try:
                    found = Dictionary(lang, index, data)
                except (OSError, ValueError, struct.error) as e:
                    log.warning("the dictionary %s could not be opened (%s); going on without it", name, e)
            if found is None and lang != "en":
                log.info("no dictionary from %s into English in %s", lang, where)
            _OPEN[(lang, str(where))] = found
        return _OPEN[(lang, str(where))]


@lru_cache(maxsize=4096)
def lemma(word: str, lang: str) -> str:
    """The word's dictionary form by simplemma (the word itself without it, or for a phrase)."""
    if " " in word.strip():
        return word
    try:
        import simplemma
    except ImportError:
        return word
    try:
        return simplemma.lemmatize(word, lang=lang)
    except (ValueError, KeyError):  # a language simplemma does not have
        return word


__all__ = ["Dictionary", "open_dictionary", "translations_of", "lemma", "folder", "ENV", "ISO3"]
