"""A conversation over one ontology: follow-up questions ("and its price?") are rewritten by the model into
standalone questions from the earlier questions and answers, then answered as any question; the rewrite is
shown and kept with the answer."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ontocore.prompts import ask as prompts

from .answer import Answer, NO_DATA
from .ask import Answerer, reuse_counts

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
    answerer: Answerer
    turns: list[Turn] = field(default_factory=list)

    def _history(self) -> str:
        lines = []
        for t in self.turns[-HISTORY_TURNS:]:
            text = t.answer.answer if not t.answer.answer.startswith(NO_DATA) else NO_DATA
            lines.append(f"Q: {t.asked}\nA: {' '.join(text.split())[:ANSWER_CHARS]}")
        return "\n".join(lines)

    def standalone(self, question: str) -> str:
        """The question as it reads without the conversation (the model rewrites it when there is history; a
        reply that is not one plausible question is not used)."""
        if not self.turns:
            return question
        prompt = prompts.render("ask_rewrite", history=self._history(), question=question)
        reply = self.answerer.model.chat([{"role": "user", "content": prompt}], tools=None, tool_choice="none",
                                         max_tokens=80)
        text = " ".join((reply.content or "").strip().strip("`\"'").split())
        if text.lower().startswith(("q:", "question:")):
            text = text.split(":", 1)[1].strip()
        if not text or "\n" in (reply.content or "").strip() or len(text) > 3 * len(question) + 150:
            log.info("rewrite not used: %r", (reply.content or "")[:200])
            return question
        return text

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


__all__ = ["Conversation", "Turn"]
