"""Answer scoring: how `ontoask --questions` and the benchmarks judge an answer against an expected value.

`is_correct(answer_text, expected)` judges a free-text answer from `ontoask` against the expected value of a
question in data/dev_questions.json. It is lenient about form and strict about content:

* numbers are compared numerically ("12.5 kg", "12.50", "2,400 m²", "four"); an integer expected value must be met
  exactly, a non-integer one (averages) within 1 % relative;
* names are compared case-, space-, punctuation- and CamelCase-insensitively, on token boundaries
  ("NovaStar29", "nova_star_29" and "NovaStar 29" all match; "Black" does not match "Blackish");
* lists: every expected item must be named (optionally, with `candidates`, at most `max_extra` other candidates);
* "yes"/"no": the first yes/no/true/false word of the answer decides; without one, a negation means "no";
* "No data available": the answer must say so (no data / not found / unknown ...); such an answer is never
  correct for any other expected value.

`answer_is_correct(answer, expected)` judges an `ontoask` answer itself: its machine fields (`boolean`, `state`)
where they decide, so an answer text in any language is judged alike; the text for the values.

`answer_set_f1(predicted, gold)` is the set-based F1 of the TEXT2SPARQL challenge, with normalized values.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable

NO_DATA = "No data available"

# phrases that say the answer is not in the data, and nothing about yes or no
_STRONG_NO_DATA = [
    r"\bno (?:relevant |such |matching )?(?:data|information|info|answer|results?|records?|facts?|matches?|evidence)\b",
    r"\bnot (?:found|known|determinable)\b",
    r"\b(?:cannot|can ?not|can't|could not|couldn't|unable to) (?:be )?(?:find|found|determine|determined|answer|answered|tell|say)\b",
    r"\b(?:i|we) (?:don't|do not) know\b",
    r"\b(?:does not|doesn't|do not|don't) (?:contain|include|have|provide) (?:any )?(?:data|information|details)\b",
    r"\bunknown\b",
    r"\bn/a\b",
    r"\binsufficient (?:data|information)\b",
]
# weaker phrases, accepted for an expected "No data available" ("not available" may mean "no" in a yes/no answer)
_WEAK_NO_DATA = [
    r"\bnot (?:available|present|provided|specified|stated|mentioned|recorded|given|listed|included)\b",
]
_STRONG_NO_DATA_RE = re.compile("|".join(_STRONG_NO_DATA), re.IGNORECASE)
_NO_DATA_RE = re.compile("|".join(_STRONG_NO_DATA + _WEAK_NO_DATA), re.IGNORECASE)

_YESNO_RE = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)
_NEGATION_RE = re.compile(r"\b(?:not|never|none|neither|nor)\b|n't\b", re.IGNORECASE)

# a number: optional sign, digits with optional thousands separators (",", thin/normal space, "'"), decimals
_NUMBER_RE = re.compile(
    r"(?<![\w.])[-+−]?(?:\d{1,3}(?:(?:,|'|\u202f|\u00a0)\d{3})+|\d+)(?:[.,]\d+)?(?:[eE][-+]?\d+)?(?![\d])")


# ----------------------------------------------------------------------------------------------- helpers

def _fold(text: str) -> str:
    """NFKD, drop combining marks (é -> e, m² -> m2), typographic dashes/quotes to ASCII."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'")


def _tokens(text: str) -> list[str]:
    """Fine-grained lower-case tokens: split on non-alphanumerics, CamelCase humps and letter/digit changes."""
    text = _fold(text)
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)          # novaStar -> nova Star
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)    # HTMLParser -> HTML Parser
    text = re.sub(r"([A-Za-z])(\d)", r"\1 \2", text)          # Blazer29 -> Blazer 29
    text = re.sub(r"(\d)([A-Za-z])", r"\1 \2", text)          # 29er -> 29 er
    return [t.lower() for t in re.split(r"[^A-Za-z0-9]+", text) if t]


def _squash(text: str) -> str:
    return "".join(_tokens(text))


def name_in_text(name: str, text: str) -> bool:
    """True if `name` occurs in `text` on token boundaries, ignoring case, spacing, punctuation and CamelCase."""
    target = _squash(name)
    if not target:
        return False
    toks = _tokens(text)
    for i in range(len(toks)):
        acc = ""
        for j in range(i, len(toks)):
            acc += toks[j]
            if acc == target:
                return True
            if len(acc) >= len(target) or not target.startswith(acc):
                break
    return False


def _parse_number(raw: str) -> float | None:
    s = _fold(raw).replace("'", "").replace("\u202f", "").replace("\u00a0", "").replace("+", "")
    if "," in s:
        if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", s):
            s = s.replace(",", "")          # 1,800 / 1,800.5: thousands separators
        elif "." not in s and s.count(",") == 1:
            s = s.replace(",", ".")         # 2,05: decimal comma
        else:
            return None
    try:
        value = float(s)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def numbers_in(text: str) -> list[float]:
    """All numbers written in `text` ("2,400 m²" -> 2400.0, "12.50 kg" -> 12.5, "2,05" -> 2.05, "four" -> 4.0)."""
    text = _fold(text)
    out = []
    for m in _NUMBER_RE.finditer(text):
        value = _parse_number(m.group(0))
        if value is not None:
            out.append(value)
    out.extend(float(_NUMBER_WORDS[m.group(1).lower()]) for m in _NUMBER_WORD_RE.finditer(text))
    return out


def as_number(value: Any) -> float | None:
    """`value` as a number if it is one (or a string that is exactly one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        s = value.strip()
        if _NUMBER_RE.fullmatch(_fold(s)):
            return _parse_number(s)
    return None


def numbers_match(found: float, expected: float, rel_tol: float | None = None) -> bool:
    if rel_tol is None:
        rel_tol = 0.0 if float(expected).is_integer() else 0.01
    return abs(found - expected) <= max(rel_tol * abs(expected), 1e-9 * max(1.0, abs(expected)))


def says_no_data(answer_text: str) -> bool:
    return bool(_NO_DATA_RE.search(_fold(answer_text)))


def yes_no(answer_text: str) -> str | None:
    """"yes", "no" or None (undecidable) for an answer to a yes/no question."""
    text = _fold(answer_text).strip()
    if not text:
        return None
    # "No data available" / "no information" must not read as a "no"
    m = _YESNO_RE.search(_STRONG_NO_DATA_RE.sub(" ", text))
    if m:
        word = m.group(1).lower()
        return "yes" if word in ("yes", "true") else "no"
    if _STRONG_NO_DATA_RE.search(text):
        return None
    return "no" if _NEGATION_RE.search(text) else "yes"


def _is_no_data(expected: Any) -> bool:
    return isinstance(expected, str) and _squash(expected) == _squash(NO_DATA)


# ----------------------------------------------------------------------------------------------- is_correct

def is_correct(answer_text: str, expected: Any, *, rel_tol: float | None = None,
               candidates: Iterable[str] | None = None, max_extra: int = 1) -> bool:
    """Does the free-text answer give the expected value? (See the module docstring for the rules.)

    rel_tol: relative tolerance for numbers (default: exact for integers, 1 % otherwise).
    candidates: for list answers, the names an answer could wrongly include (e.g. all product names);
    the answer may then name at most `max_extra` candidates that are not expected.
    """
    answer_text = "" if answer_text is None else str(answer_text)
    if _is_no_data(expected):
        return says_no_data(answer_text)
    if not answer_text.strip():
        return False

    if isinstance(expected, (list, tuple, set)):
        items = [str(e) for e in expected]
        if not items:
            return says_no_data(answer_text) or not re.search(r"\w", answer_text)
        if not all(_item_in(item, answer_text, rel_tol) for item in items):
            return False
        return _few_extra(items, answer_text, candidates, max_extra)

    if isinstance(expected, bool):
        expected = "yes" if expected else "no"
    if isinstance(expected, str) and expected.strip().lower() in ("yes", "no", "true", "false"):
        want = "yes" if expected.strip().lower() in ("yes", "true") else "no"
        return yes_no(answer_text) == want

    if as_number(expected) is not None:
        return _item_in(expected, answer_text, rel_tol)
    # a name: naming other candidates besides it is hedging, not an answer
    return _item_in(expected, answer_text, rel_tol) and _few_extra([str(expected)], answer_text, candidates, max_extra)


def answer_is_correct(answer: Any, expected: Any, *, rel_tol: float | None = None,
                      candidates: Iterable[str] | None = None, max_extra: int = 1) -> bool:
    """Does an `ontoask` answer (an Answer, or its record in answers.json) give the expected value? Its machine
    fields decide what they can, in any language of the answer text: an expected yes/no is the answer's `boolean`;
    an expected "No data available" is a `state` of no_data (or error). Other values, and an answer without these
    fields (a yes/no question not read as one), are judged on the text by `is_correct`, whose values are the
    data's own in every language."""
    get = answer.get if isinstance(answer, dict) else (lambda name, default=None: getattr(answer, name, default))
    text, state, boolean = get("answer", "") or "", get("state", "") or "", get("boolean")
    if _is_no_data(expected) and state:
        return state in ("no_data", "error")
    want = expected if isinstance(expected, bool) else (
        expected.strip().lower() in ("yes", "true") if isinstance(expected, str)
        and expected.strip().lower() in ("yes", "no", "true", "false") else None)
    if want is not None and isinstance(boolean, bool):
        return state == "answered" and boolean == want
    return is_correct(text, expected, rel_tol=rel_tol, candidates=candidates, max_extra=max_extra)


def _few_extra(items: list[str], answer_text: str, candidates: Iterable[str] | None, max_extra: int) -> bool:
    if candidates is None:
        return True
    wanted = {_squash(i) for i in items}
    extra = [c for c in candidates if _squash(c) not in wanted and name_in_text(c, answer_text)]
    return len(extra) <= max_extra


def _item_in(expected: Any, answer_text: str, rel_tol: float | None) -> bool:
    num = as_number(expected)
    if num is not None:
        return any(numbers_match(found, num, rel_tol) for found in numbers_in(answer_text))
    return name_in_text(str(expected), answer_text)


# ----------------------------------------------------------------------------------------------- answer-set F1

_TYPED_LITERAL = re.compile(r'^"(.*)"\^\^<?([^>]*)>?$', re.DOTALL)
_LANG_LITERAL = re.compile(r'^"(.*)"@[A-Za-z0-9-]+$', re.DOTALL)
_QUOTED = re.compile(r'^"(.*)"$', re.DOTALL)
_IRI = re.compile(r"^(?:https?|urn|ftp|mailto|file|tag):\S*$", re.IGNORECASE)


def normalize_value(value: Any) -> tuple[str, Any]:
    """A comparable key for one result value: IRIs exact, numbers numerically, other literals casefolded.

    Accepts plain strings (IRIs, lexical forms), N-Triples-like literals ('"4.2"^^xsd:decimal', '"x"@en'),
    '<iri>' and rdflib terms.
    """
    try:  # rdflib terms, without importing rdflib here
        from rdflib.term import Literal, URIRef
        if isinstance(value, URIRef):
            return ("iri", str(value))
        if isinstance(value, Literal):
            value = str(value)
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float, Decimal)):
        return _num_key(str(value)) or ("str", str(value).casefold())
    s = str(value).strip()
    if s.startswith("<") and s.endswith(">") and " " not in s:
        return ("iri", s[1:-1])
    for pattern in (_TYPED_LITERAL, _LANG_LITERAL, _QUOTED):
        m = pattern.match(s)
        if m:
            s = m.group(1)
            break
    else:
        if _IRI.match(s):
            return ("iri", s)
    low = s.strip().casefold()
    if low in ("true", "false"):
        return ("bool", low == "true")
    return _num_key(s.strip()) or ("str", re.sub(r"\s+", " ", low))


def _num_key(s: str) -> tuple[str, Any] | None:
    if not re.fullmatch(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", s):
        return None
    try:
        d = Decimal(s)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    # round to 10 significant digits so "0.1" (decimal) and 0.1000000000000000055 (double) agree
    return ("num", Decimal(f"{d:.10g}").normalize())


def answer_set_f1(predicted: Iterable[Any], gold: Iterable[Any]) -> float:
    """Set F1 between predicted and gold result values (normalized); empty vs empty is 1.0."""
    p = {normalize_value(v) for v in predicted}
    g = {normalize_value(v) for v in gold}
    if not p and not g:
        return 1.0
    if not p or not g:
        return 0.0
    tp = len(p & g)
    if tp == 0:
        return 0.0
    precision, recall = tp / len(p), tp / len(g)
    return 2 * precision * recall / (precision + recall)
