"""The question read in the ontology's language: which language it is in, its English reading (the one its kind and
the checks read), the question as planned in the ontology's main label language, the words the bilingual
dictionaries and the multilingual model tell about it, and the values it names (its mentions). Part of the answer
loop (answerer.py: `AnswerLoop` is a `QuestionReading`)."""

from __future__ import annotations

import logging
from typing import Any

from .language.bilingual import open_dictionary
from .language.crosslingual import MARGIN, MIN_SIMILARITY
from .language.detection import DEFAULT as ENGLISH
from .language.detection import Detection, detect, preference
from ontocore.text import fold

from .linking import MAX_HINTS
from .question import Question, parse_question
from .language.glossary import (Term, contradicted, dictionary_glossary, glossary, label_glossary, label_glosses,
                                ontology_terms, spelling_glossary, vocabulary)
from .language.translation import Translation, model_reading_counts, translate, translate_text

log = logging.getLogger(__name__)


class QuestionReading:
    """The question's language and readings, for the answer loop (uses its model, store, schema, index, trace and
    the multilingual model `_linker`)."""

    def _language(self, text: str) -> tuple[Detection, Translation | None, str, str]:
        """(the detection, the translation made or None, the question as linked and planned, its English reading)

        Any language is planned as the same question in English would be, so that it differs from English only by
        its translation: a question in another language than English is first translated into English (the kind of
        question is read from English grammar by question.py and ontouse.checks); when the ontology is labelled in
        English (its main label language, or every class and property it shows has an English label, shown in the
        prompt beside its name) that English question is planned, else it goes on exactly as an English question
        would: into the ontology's main label language (`_from_english`). A question asked in the main label
        language is planned as asked, read for its kind in English. Without a usable translation the question stays
        as asked."""
        main = self.schema.languages.main
        found = detect(text, self.schema.languages)
        if found.lang == ENGLISH:
            if main == ENGLISH or self._english_view:
                return found, None, text, text
            translation = self._from_english(text)
            return found, translation, translation.get(main, text), text
        terms, classes = self._words()
        if found.lang:  # a known language: one plain translation into English
            told, hints = self._told(text, found.lang)
            translation = translate_text(self.model, text, found.lang, ENGLISH, trace=self.trace,
                                         words=vocabulary(terms, ENGLISH, main), hints=hints, told=told,
                                         names=label_glossary(text, classes, found.lang, ENGLISH, main),
                                         kinds=vocabulary(classes, ENGLISH, main))
        else:  # not told apart: the translation call also says which language it is
            hints = {ENGLISH: self._hints(text, ENGLISH)} if self._linker else None
            translation = translate(self.model, text, "", [ENGLISH], trace=self.trace, hints=hints,
                                    words={ENGLISH: vocabulary(terms, ENGLISH, main)},
                                    kinds={ENGLISH: vocabulary(classes, ENGLISH, main)})
            if model_reading_counts(found, translation):  # the model reads the language better than clues
                found = Detection(translation.reported, "model", found.probability)
        lang = found.lang or ENGLISH
        english = text if lang == ENGLISH else translation.get(ENGLISH, "")
        if lang == main or not english:
            return found, translation, text, english
        if main == ENGLISH or self._english_view:
            return found, translation, english, english
        onward = self._from_english(english)  # as the English question would be
        translation.texts.update(onward.texts)
        translation.rejected = "; ".join(x for x in (translation.rejected, onward.rejected) if x)
        return found, translation, onward.get(main, english), english

    def _words(self) -> tuple[list[Term], list[Term]]:
        """The ontology's words (read once), and those of its classes."""
        if self._terms is None:
            self._terms = ontology_terms(self.store, self.schema)
        classes = [term for term in self._terms if term.iri in {t.cls for t in self.schema.tables.values()}]
        return self._terms, classes

    def _hints(self, text: str, lang: str) -> list[tuple[str, str]]:
        """Words of the text and the ontology's word in `lang` they probably name, by the multilingual
        model (none without it)."""
        if self._linker is None:
            return []
        terms, _ = self._words()
        return glossary(self._linker, text, terms, lang, self.schema.languages.main)

    def _told(self, text: str, lang: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(what the bilingual dictionaries tell, when installed (language/bilingual.py): the English word of a class
        or named value that a word of the question translates to, for words the multilingual model gave no hint
        for (`dictionary_glossary`), and of one labelled in several words that the question says in other words
        (`label_glosses`); the multilingual model's hints, `_hints`, and the class a word the dictionary lacks
        spells, `spelling_glossary`)."""
        dictionary = open_dictionary(lang)
        terms, classes = self._words()
        main = self.schema.languages.main
        values = [t for t in terms if not t.name]  # the named values (a status, a colour)
        hints = [h for h in self._hints(text, ENGLISH) if not self._doubtful(h, values, dictionary)]
        hinted = {w for span, _ in hints for w in fold(span).split()}
        # the dictionary tells the words the multilingual model found nothing for
        told = [(span, word) for span, word in dictionary_glossary(dictionary, text, classes + values, ENGLISH, main)
                if not hinted & set(fold(span).split())]
        # a class or value of several words that the question says in other words ("pelle de jardin": "pás de jardim")
        said = label_glosses(open_dictionary, text, lang, classes + values, ENGLISH, main)
        inside = [set(fold(span).split()) for span, _ in said]  # a word told as part of such a label goes
        told = said + [(span, word) for span, word in told if not any(set(fold(span).split()) <= s for s in inside)]
        # a class's word that the question spells in a word the dictionary lacks ("veleros": sailboat), as a hint
        named = {w for span, _ in told + hints + label_glossary(text, classes, lang, ENGLISH, main)
                 for w in fold(span).split()}
        hints += [(span, word) for span, word in spelling_glossary(dictionary, text, classes, ENGLISH, main)
                  if not named & set(fold(span).split())]
        if told or dictionary is not None:
            self.trace.write("dictionary", language=lang, told=told, hints=hints)
        return told, hints

    def _doubtful(self, hint: tuple[str, str], values: list[Term], dictionary: Any) -> bool:
        """A hint that the question names a value (a status, a colour) whose link is weak - a cosine within the
        multilingual model's margin of its floor - and that the bilingual dictionary contradicts (`contradicted`):
        two readings disagree and the link is the weaker one."""
        span, word = hint
        term = next((t for t in values if t.word(ENGLISH, self.schema.languages.main) == word), None)
        if term is None or self._linker is None or dictionary is None:
            return False
        cosine = float((self._linker.embed([span]) @ self._linker.embed(term.texts()).T).max())
        if cosine >= MIN_SIMILARITY + MARGIN or not contradicted(dictionary, span, word):
            return False
        log.info('the hint "%s": "%s" (cosine %.2f) is set aside: the dictionary says otherwise', span, word, cosine)
        return True

    def _from_english(self, english: str) -> Translation:
        """An English question in the ontology's main label language (the one way every question takes into it)."""
        main = self.schema.languages.main
        terms, classes = self._words()
        return translate_text(self.model, english, ENGLISH, main, trace=self.trace,
                              words=vocabulary(terms, main, main), hints=self._hints(english, main),
                              names=label_glossary(english, classes, ENGLISH, main, main),
                              kinds=vocabulary(classes, main, main))

    def _parse(self, asked: str, english: str, lang: str) -> tuple[Question, Question]:
        """(the question read for its kind and the checks: its English reading when there is one; the question
        read for linking: as planned, in the ontology's label language)."""
        linked = parse_question(asked)
        q = parse_question(english) if english and english != asked else linked
        q.labels = preference(lang or ENGLISH, self.schema.languages.main)
        linked.labels = q.labels
        return q, linked

    def _mentions(self, linked: Question, text: str, english: str = "") -> list:
        """The values the question names: in the question as planned, and, when that is a translation, the values
        the question as asked and its English reading name whole (a value labelled in the question's language or
        in English, or a name a translation changed), after them; one hint per value and table, at most MAX_HINTS."""
        if " ".join(linked.text.split()) == text and english in ("", text):
            return self.index.mentions(linked)
        readings = dict.fromkeys(r for r in (text, english) if r and r != " ".join(linked.text.split()))
        whole = [m for r in readings for m in self.index.mentions(parse_question(r)) if m.exact]
        planned = self.index.mentions(linked)  # last: the index keeps the question it last linked
        seen = {(m.value, m.table) for m in planned}
        for m in whole:
            if (m.value, m.table) not in seen:
                seen.add((m.value, m.table))
                planned.append(m)
        return planned[:MAX_HINTS]
