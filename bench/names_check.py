"""Names a person cannot ask for, in a built index: a check over every build of the benchmark runs, not a
hand count (bench/text_bench.py calls it on each build).

* a class named by a verb (its head word, the last of its CamelCase words, is a verb form in the English lexicon
  of the tagger the builder uses, and no noun: its plural form is no noun there either; an acronym is a name), by a
  function word (determiner, preposition, pronoun, conjunction,
  adverb, modal) or `Thing`;
* a property name with a cut word: a word of its lowerCamelCase name that is neither an English word (the
  tagger's lexicon and its spelling list, with plural and verb endings taken off), nor a unit symbol, nor a
  number, nor a word the text itself wrote (the labels and sentences of the build: names of things are words
  too).

Terms of the user's vocabulary (`--schema`: an entry with its own IRI) are the user's names and not judged.

    python -m bench.names_check OUT/entities_index.json     # prints what it finds, exit 1 when anything
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

_FUNCTION_TAGS = {"DT", "IN", "CC", "PRP", "PRP$", "WDT", "WP", "WP$", "WRB", "MD", "TO", "RB", "RBR", "RBS", "EX",
                  "PDT", "UH"}
_VERB_TAGS = {"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"}
_BOOKKEEPING = {"TextChunk"}


@lru_cache(maxsize=1)
def _lexicon() -> tuple[dict[str, str], set[str]]:
    """word -> its Brill tag, and the spelling list's words (both from the textblob package's data files)."""
    import textblob.en as en
    folder = Path(en.__file__).parent
    tags: dict[str, str] = {}
    for line in (folder / "en-lexicon.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(";;;") or " " not in line:
            continue
        word, tag = line.split(" ", 1)
        if word.islower() or word.lower() not in tags:  # the lower-case entry is the word's own tag; a capitalized
            tags[word.lower()] = tag.split()[0]  # one ("Drop VB") is how it reads at a sentence's start
    words = set()
    for line in (folder / "en-spelling.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(";;;") or " " not in line:
            continue
        words.add(line.split(" ", 1)[0].lower())
    return tags, words


def _split(name: str) -> list[str]:
    return re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)


def _known(word: str, extra: set[str]) -> bool:
    tags, spelled = _lexicon()
    w = word.lower()
    if w in tags or w in spelled or w in extra or w.isdigit():
        return True
    for cut, add in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"),
                     ("er", ""), ("ers", "")):
        if w.endswith(cut) and len(w) - len(cut) >= 3 and (w[: -len(cut)] + add) in tags:
            return True
    return False


def _is_unit(word: str) -> bool:
    from ontobuild.values.units import unit as unit_of, currency
    return bool(unit_of(word) or unit_of(word.lower()) or currency(word.upper()) or currency(word))


def class_problem(name: str) -> str:
    """Why a class name is not a kind of thing ("" when it is)."""
    if name in _BOOKKEEPING:
        return ""
    if name == "Thing":
        return "thing"
    words = _split(name)
    if not words:
        return ""
    if words[-1].isupper() and len(words[-1]) > 1:
        return ""  # an acronym ("AI", "ERP") names a thing
    tags, _ = _lexicon()
    head = words[-1].lower()
    tag = tags.get(head, "")
    if tag in _FUNCTION_TAGS and len(words) == 1:
        return "function"
    if tag in _VERB_TAGS and not _has_noun_reading(head):
        return "verb"
    return ""


def _has_noun_reading(word: str) -> bool:
    """Whether an English word the tagger's lexicon gives as a verb is commonly a noun too ("work", "need"): its plural
    form is a noun in that lexicon ("works", "needs"), where a verb's -s form is a verb ("carries", "arrives")."""
    tags, _ = _lexicon()
    w = word.lower()
    forms = [w + "s", w + "es", w[:-1] + "ies" if w.endswith("y") else ""]
    return any(tags.get(f, "").startswith("NN") for f in forms if f)


def property_problem(name: str, extra: set[str]) -> str:
    """Why a property name has a cut word ("" when every word is whole)."""
    for w in _split(name):
        if len(w) <= 2 or w.isupper() or _is_unit(w) or _known(w, extra):
            continue
        return f"cut word {w!r}"
    return ""


def _text_words(index: dict[str, Any]) -> set[str]:
    """Words the input itself wrote (labels, aliases, sentences of the facts' provenance)."""
    out: set[str] = set()
    for ind in (index.get("individuals") or {}).values():
        for text in [ind.get("label") or "", *(ind.get("aliases") or [])]:
            out |= {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
        for f in ind.get("facts") or []:
            src = f.get("source") or {}
            out |= {w.lower() for w in re.findall(r"[A-Za-z]+", str(src.get("sentence", "")))}
    return out


def check_index(index: dict[str, Any]) -> dict[str, list[str]]:
    """The names of one built index that a person cannot ask for, by kind."""
    out: dict[str, list[str]] = {"verb_classes": [], "function_word_classes": [], "thing_classes": [],
                                 "cut_properties": []}
    for name, cls in (index.get("classes") or {}).items():
        if isinstance(cls, dict) and cls.get("iri"):
            continue  # the user's vocabulary's own term (--schema): its name is theirs, not the builder's
        problem = class_problem(name)
        if problem:
            out[{"verb": "verb_classes", "function": "function_word_classes", "thing": "thing_classes"}[problem]
                ].append(name)
    extra = _text_words(index)
    for name, prop in (index.get("properties") or {}).items():
        if name in ("text", "mentions") or isinstance(prop, dict) and prop.get("iri"):
            continue
        if property_problem(name, extra):
            out["cut_properties"].append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    bad = 0
    for path in args:
        found = check_index(json.loads(Path(path).read_text(encoding="utf-8")))
        for kind, names in found.items():
            for n in names:
                print(f"{path}: {kind}: {n}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
