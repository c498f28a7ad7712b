"""The language of a question, and which of a thing's labels to show for it.

Detection: a language identifier that ships its model inside its PyPI package and runs offline (`py3langid`, the
maintained fork of `langid.py`; `langid` itself is read the same way), imported lazily and restricted to the
languages the answerer supports. A short question is hard to identify, so the identifier's answer counts only
when it is sure; otherwise two cheap clues from the ontology and the project's own English word list decide:
the question shares words with the labels of exactly one language of the ontology other than English (`"Welche
Kessel ..."` shares "Kessel" with the German labels), or it is written with English function words. A longer
question without a single English function word is "not English, language unknown" (the translation call then
names the language); English stays the default when nothing decides.

Labels: `pick_label` is THE choice of one label among a thing's labels in several languages: the question's
language first, then the ontology's main label language, then a label without a language tag, then any."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Sequence

from ontocore.text import QUOTED, STOP, singular, tokens

log = logging.getLogger(__name__)

DEFAULT = "en"
# the languages questions are answered in (ISO 639-1); the identifier is restricted to these
SUPPORTED = ("en", "de", "fr", "es", "it", "pt", "nl")
NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch"}
SURE = 0.90  # the identifier's normalised probability from which its answer counts on its own
MIN_WORDS = 3  # fewer words: the identifier is not asked
ENGLISH_CUE = 1  # English function words (text.STOP, 3 letters or more) that make an undecided question English
LABEL_CUE = 1  # words shared with the labels of one language only that name that language


@dataclass(frozen=True)
class Detection:
    lang: str  # an ISO 639-1 code of SUPPORTED ("" when nothing decided and the question has no English cue)
    source: str  # identifier | labels | english_words | identifier_guess | no_english_words | default | model
    probability: float = 0.0  # the identifier's, when it was asked

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"lang": self.lang, "source": self.source}
        if self.probability:
            out["probability"] = round(self.probability, 3)
        return out


@dataclass
class LabelLanguages:
    """The language tags of an ontology's labels: how many labels each language has, and the words that occur in
    the labels of one language only (the clue for short questions)."""

    counts: Counter = field(default_factory=Counter)  # language code ("" untagged) -> labels
    words: dict[str, set[str]] = field(default_factory=dict)  # language -> words found only in its labels

    @classmethod
    def of(cls, labels: Iterable[tuple[str, str | None]]) -> "LabelLanguages":
        """From (label text, language tag or None) pairs."""
        counts: Counter = Counter()
        seen: dict[str, set[str]] = {}
        for text, lang in labels:
            code = base_code(lang)
            counts[code] += 1
            if code:
                seen.setdefault(code, set()).update(singular(w) for w in tokens(text)
                                                    if len(w) > 2 and not w.isdigit())
        words = {code: ws - set().union(*(o for c, o in seen.items() if c != code)) for code, ws in seen.items()}
        return cls(counts, words)

    @property
    def tagged(self) -> bool:
        return any(code for code in self.counts)

    @property
    def main(self) -> str:
        """The language most labels carry (English on a tie, and when no label has a tag)."""
        tagged = [(n, code == DEFAULT, code) for code, n in self.counts.items() if code]
        return max(tagged)[2] if tagged else DEFAULT

    def has(self, lang: str) -> bool:
        return bool(lang) and self.counts.get(lang, 0) > 0

    def shared_words(self, text: str) -> dict[str, int]:
        """Per language, how many of the question's words occur only in that language's labels."""
        words = {singular(w) for w in tokens(text)}
        return {code: len(words & ws) for code, ws in self.words.items() if words & ws}


def base_code(tag: str | None) -> str:
    """'de-CH' -> 'de'; None -> ''."""
    return (tag or "").split("-", 1)[0].lower()


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The language identifier restricted to SUPPORTED, or None when no identifier package is installed."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-not-found]

        ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    except ImportError:
        try:
            from langid.langid import LanguageIdentifier, model  # type: ignore[import-not-found]

            ident = LanguageIdentifier.from_modelstring(model, norm_probs=True)
        except ImportError:
            log.info("no language identifier installed (py3langid); the language is read from clues only")
            return None
    ident.set_languages(list(SUPPORTED))
    return ident


def identify(text: str) -> tuple[str, float] | None:
    """(language, probability) by the installed identifier, or None without one."""
    ident = _identifier()
    if ident is None:
        return None
    try:
        lang, prob = ident.classify(text)
    except Exception as e:  # noqa: BLE001 - a failing identifier must not stop a question
        log.warning("the language identifier failed: %s", e)
        return None
    return str(lang), float(prob)


def english_cue(words: list[str]) -> int:
    """English function words of three letters or more (ontocore.text.STOP): "how", "many", "which", "the"; the
    shorter ones ("a", "in", "no", "do") are words of other languages too."""
    return sum(len(w) >= 3 and w in STOP for w in words)


def detect(text: str, labels: LabelLanguages | None = None) -> Detection:
    """The language of a question: the identifier when it is sure; else words shared with the labels of one
    language other than English; else English function words; else the identifier's unsure guess; else "" for a
    question of MIN_WORDS words or more without a single English function word (not English, language unknown:
    the translation call says which), and English, the default, for anything else."""
    words = tokens(text)
    found = identify(text) if len(words) >= MIN_WORDS else None
    prob = found[1] if found else 0.0
    if found and found[0] in SUPPORTED and found[1] >= SURE:
        return Detection(found[0], "identifier", prob)
    if labels is not None and labels.tagged:  # quoted names are values, not the question's language
        shared = labels.shared_words(QUOTED.sub(" ", text))
        best = sorted(shared.items(), key=lambda kv: (-kv[1], kv[0]))
        if best and best[0][0] != DEFAULT and best[0][1] >= LABEL_CUE and (len(best) == 1 or best[0][1] > best[1][1]):
            return Detection(best[0][0], "labels", prob)
    if english_cue(words) >= ENGLISH_CUE:
        return Detection(DEFAULT, "english_words", prob if found and found[0] == DEFAULT else 0.0)
    if found and found[0] in SUPPORTED:  # unsure, but the identifier's best guess beats no guess
        return Detection(found[0], "identifier_guess", prob)
    unquoted = tokens(QUOTED.sub(" ", text))
    if len(unquoted) >= MIN_WORDS and not any(w in STOP for w in unquoted):
        return Detection("", "no_english_words")
    return Detection(DEFAULT, "default")


def preference(question_lang: str, main: str) -> tuple[str, ...]:
    """The order in which label languages are preferred for a question: its own, the ontology's main language,
    untagged ("")."""
    return tuple(dict.fromkeys(x for x in (question_lang, main, "") if x is not None))


def pick_label(labels: Sequence[tuple[str, str | None]], prefer: Sequence[str] = (DEFAULT, "")) -> str | None:
    """Of (text, language tag) pairs, the text in the first preferred language, else the first one."""
    if not labels:
        return None
    order = list(prefer)

    def rank(item: tuple[int, tuple[str, str | None]]) -> tuple[int, int]:
        code = base_code(item[1][1])
        return (order.index(code) if code in order else len(order), item[0])

    return min(enumerate(labels), key=rank)[1][0]


def rank_of(tag: str | None, prefer: Sequence[str]) -> int:
    """Where a language tag stands in a preference order (lower is preferred)."""
    code = base_code(tag)
    return list(prefer).index(code) if code in prefer else len(prefer)


__all__ = ["Detection", "LabelLanguages", "detect", "identify", "pick_label", "preference", "rank_of", "NAMES",
           "SUPPORTED", "DEFAULT"]
