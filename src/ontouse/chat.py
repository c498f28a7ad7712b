"""A conversation over one ontology: follow-up questions ("and its price?") are rewritten by the model into
standalone questions from the earlier questions and answers, then answered as any question; the rewrite is
shown and kept with the answer. The rewrite keeps the user's language: the prompt names it (the follow-up's own,
when the language identifier or the ontology's labels tell it; else the language of the conversation's last question,
since a short follow-up is hard to identify), and a rewrite surely written in another language is asked again
once."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field


from .answer import Answer
from .answerer import AnswerLoop, reuse_counts
from .language.detection import NAMES, detect
from .prompts import prompts

log = logging.getLogger(__name__)

HISTORY_TURNS = 3  # earlier turns shown to the rewrite
ANSWER_CHARS = 300  # of each earlier answer


@dataclass
class Turn:
    question: str
    asked: str  # the standalone question that was answered
    answer: Answer


@dataclass
class Conversation:
    answerer: AnswerLoop
    turns: list[Turn] = field(default_factory=list)

    def _history(self) -> str:
        lines = []
        for t in self.turns[-HISTORY_TURNS:]:
            text = t.answer.answer
            if t.answer.state in ("no_data", "error"):  # "No data available", without what was looked for
                text = text.split(" (", 1)[0]
            lines.append(f"Q: {t.asked}\nA: {' '.join(text.split())[:ANSWER_CHARS]}")
        return "\n".join(lines)

    def standalone(self, question: str) -> str:
        """The question as it reads without the conversation (the model rewrites it when there is history; a
        reply that is not one plausible question is not used)."""
        if not self.turns:
            return question
        lang = self.language(question)
        named = f"{NAMES[lang]}, the language of the next question" if lang in NAMES else \
            "the language of the next question"
        messages = [{"role": "user", "content": prompts.render("ask_rewrite", history=self._history(),
                                                               question=question, language=named)}]
        reply = self.answerer.model.chat(messages, tools=None, tool_choice="none", max_tokens=80)
        if lang in NAMES and _written_in_another(reply.content or "", lang):
            log.info("rewrite not in %s, asked again: %r", NAMES[lang], (reply.content or "")[:200])
            messages += [{"role": "assistant", "content": reply.content or ""},
                         {"role": "user", "content": prompts.render("ask_rewrite_language", language=NAMES[lang])}]
            reply = self.answerer.model.chat(messages, tools=None, tool_choice="none", max_tokens=80)
        text = " ".join((reply.content or "").strip().strip("`\"'").split())
        if text.lower().startswith(("q:", "question:")):
            text = text.split(":", 1)[1].strip()
        if not text or "\n" in (reply.content or "").strip() or len(text) > 3 * len(question) + 150:
            log.info("rewrite not used: %r", (reply.content or "")[:200])
            return question
        return text

    def language(self, question: str) -> str:
        """The language of a follow-up: its own when the identifier or the ontology's labels tell it, else the
        language of the conversation's last question ("" when neither is known)."""
        found = detect(question, self.answerer.schema.languages)
        if found.source in ("identifier", "labels") or not self.turns:
            return found.lang
        return self.turns[-1].answer.language or found.lang

    def ask(self, question: str) -> Turn:
        question = " ".join(question.split())
        usage = self.answerer.model.usage
        before = usage.snapshot()
        reuse_before = reuse_counts(self.answerer.model)
        asked = self.standalone(question)
        calls, prompt_tokens, completion_tokens, seconds = (a - b for a, b in zip(usage.snapshot(), before))
        evaluated, reused, loaded = (a - b for a, b in zip(reuse_counts(self.answerer.model), reuse_before))
        answer = self.answerer.ask(asked)
        answer.llm_calls += calls
        answer.prompt_tokens += prompt_tokens
        answer.completion_tokens += completion_tokens
        answer.prompt_evaluated += evaluated
        answer.prompt_reused += reused
        answer.prompt_loaded += loaded
        answer.seconds += seconds
        answer.question = question
        answer.asked = asked if asked != question else ""
        turn = Turn(question=question, asked=asked, answer=answer)
        self.turns.append(turn)
        return turn


def _written_in_another(text: str, lang: str) -> bool:
    """The language identifier is sure the text is in another language than `lang`."""
    found = detect(" ".join(text.split()))
    return found.source == "identifier" and found.lang not in ("", lang)


__all__ = ["Conversation", "Turn"]
