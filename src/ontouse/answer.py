"""What `ontoask` returns for one question: the answer text, the result table it was read from, the SPARQL
that produced it, the support triples, and the cost.

A result table cell is a `Cell`: the value the query selected (a literal's lexical form, or an IRI) and, when
that value names a thing (its IRI, its label, or a property whose values are the thing's label), the thing's
IRI as `entity` and its display name as `label`. Consumers that compare answers with IRIs (entity answers)
read `Cell.key("entity")`; consumers that compare selected values read `Cell.key("value")`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NO_DATA = "No data available"


_FLOATING = {"double", "float", "decimal"}


def _readable_number(text: str) -> str:
    """A computed number as a person reads it: 11.350000000000001 -> 11.35 (the exact value stays in `value`)."""
    try:
        number = float(text)
    except ValueError:
        return text
    if number != number or number in (float("inf"), float("-inf")):
        return text
    return f"{number:.12g}"


@dataclass(frozen=True)
class Cell:
    value: str  # the selected value: a literal's lexical form or an IRI
    is_iri: bool = False
    datatype: str = ""  # a literal's datatype IRI ("" for plain strings and IRIs)
    entity: str = ""  # the IRI of the thing this value names, when it names one
    label: str = ""  # the display name of that thing (or of the IRI in `value`)

    def key(self, prefer: str = "value") -> str:
        """`prefer="entity"`: the thing's IRI when the cell names a thing, else the value."""
        if prefer == "entity" and self.entity:
            return self.entity
        return self.value

    def text(self) -> str:
        """How the cell is shown to a person."""
        if self.is_iri:
            return self.label or self.value
        if self.datatype.rsplit("#", 1)[-1] in _FLOATING:
            return _readable_number(self.value)
        return self.value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.is_iri:
            out["iri"] = True
        if self.datatype:
            out["datatype"] = self.datatype
        if self.entity:
            out["entity"] = self.entity
        if self.label:
            out["label"] = self.label
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Cell":
        return cls(value=d["value"], is_iri=bool(d.get("iri")), datatype=d.get("datatype", ""),
                   entity=d.get("entity", ""), label=d.get("label", ""))


@dataclass
class Answer:
    question: str
    answer: str  # the text shown to the user
    columns: list[str] = field(default_factory=list)  # names of the result columns
    rows: list[list[Cell]] = field(default_factory=list)  # the result table (empty for yes/no and no data)
    boolean: bool | None = None  # the answer to a yes/no question
    support: list[list[str]] = field(default_factory=list)  # [subject, predicate, object], prefixed names
    sparql: list[str] = field(default_factory=list)  # every query that ran, in order
    plan: dict[str, Any] | None = None  # the query plan that produced the answer (data only)
    sql: str = ""  # the plan in the SQL form the model wrote it in, after repairs
    repairs: list[str] = field(default_factory=list)  # names of the repair rules that changed the plan
    state: str = ""  # answered | unsure | no_data | error
    error: str = ""  # why there is no answer, when state is unsure, no_data or error
    checks: list[dict[str, Any]] = field(default_factory=list)  # the checks the result ran: check, passed, detail
    # the tables / columns the model's plans named that the view does not have (none of them reached the store)
    view_misses: list[str] = field(default_factory=list)
    # plans that disagreed and how code decided between them (arbitration.py): {"rule", "chosen", "detail", "plans"}
    arbitration: dict[str, Any] | None = None
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_evaluated: int = 0  # prompt tokens the model evaluated (the rest came from a kept prefix state)
    prompt_reused: int = 0  # prompt tokens taken from a kept state instead of evaluated
    prompt_loaded: int = 0  # of those, tokens whose state was loaded from the prefix cache (memory or disk)
    seconds: float = 0.0  # wall time, without waiting for another process's inference
    wait_seconds: float = 0.0
    truncated: bool = False  # the result had more rows than are kept
    asked: str = ""  # in a conversation: the standalone question answered, when the question was rewritten
    sources: list[dict[str, str]] = field(default_factory=list)  # per support triple, where it came from ({}: unknown)
    language: str = ""  # the language the question is written in (ISO 639-1; ontouse.language.detection)
    # the language of the answer text's fixed phrases (ontouse.phrases), when the question is not in English: the
    # question's, or "en" when no phrase could be translated. The text is for people: read the machine fields
    # `state` (answered | unsure | no_data | error) and `boolean` (a yes/no answer) instead of parsing it
    text_language: str = ""
    # the translation made for the question (ontouse.language.translation): {"used": the text linked and planned ("": the
    # question as asked), "from": its language, "texts": language -> translation, "rejected": why not used}
    translation: dict[str, Any] | None = None

    @property
    def no_data(self) -> bool:
        return self.state != "answered"

    def values(self, prefer: str = "value") -> list[str]:
        """The answer set as strings: every cell of every row (yes/no as "true"/"false"), without repeats."""
        if self.boolean is not None:
            return ["true" if self.boolean else "false"]
        out = [c.key(prefer) for row in self.rows for c in row]
        return list(dict.fromkeys(out))

    def table(self, prefer: str = "value") -> list[list[str]]:
        """The result rows as strings."""
        return [[c.key(prefer) for c in row] for row in self.rows]

    def to_dict(self, expected: Any = None, with_expected: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question, "answer": self.answer, "columns": self.columns,
            "rows": [[c.to_dict() for c in row] for row in self.rows], "boolean": self.boolean,
            "support": self.support, "sparql": self.sparql, "sql": self.sql, "plan": self.plan,
            "repairs": self.repairs, "state": self.state, "error": self.error, "checks": self.checks,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "prompt_evaluated": self.prompt_evaluated, "prompt_reused": self.prompt_reused,
            "prompt_loaded": self.prompt_loaded, "seconds": round(self.seconds, 2), "truncated": self.truncated}
        if self.wait_seconds:
            out["wait_seconds"] = round(self.wait_seconds, 2)
        if self.view_misses:
            out["view_misses"] = self.view_misses
        if self.arbitration:
            out["arbitration"] = self.arbitration
        if self.asked:
            out["asked"] = self.asked
        if any(self.sources):
            out["sources"] = self.sources
        if self.language:
            out["language"] = self.language
        if self.text_language:
            out["text_language"] = self.text_language
        if self.translation:
            out["translation"] = self.translation
        if with_expected:
            out["expected"] = expected
        return out

    def render(self) -> str:
        """The answer and its support, as printed on a terminal."""
        lines = [f"(asked as: {self.asked})", self.answer] if self.asked else [self.answer]
        if self.support:
            from .provenance import describe

            lines.append("Support:")
            shown = ""
            for i, (s, p, o) in enumerate(self.support):
                lines.append(f"  {s} {p} {o}")
                where = describe(self.sources[i]) if i < len(self.sources) else ""
                if where and where != shown:
                    lines.append(f"      from {where}")
                shown = where or shown
        return "\n".join(lines)
