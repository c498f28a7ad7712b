"""What an answer check is: a registered object with a name, its place in the order, when it applies, the problem
it finds and an optional bounded repair; what it is given (`Candidate`) and what it gives back (`Outcome`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..answer import Cell
from ..question import Question
from ..sqlplan.plan import Plan
from ..sqlplan.schema import Schema


@dataclass(frozen=True)
class Outcome:
    """One check's verdict on one answer: passed or not, with the reason (the answer record keeps the list)."""
    name: str
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.name, "passed": self.passed}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Candidate:
    """An answer under check: the question, the plan and the rows it gave, the view, the values the question names
    (`mentions`), whether the plan returns aggregates only, and the linking.ValueIndex of the data (`index`: the
    other names of a named thing and of a column, and the sentence-embedding model; without it, the checks that
    need them pass)."""
    q: Question
    plan: Plan
    rows: list[list[Cell]]
    schema: Schema
    mentions: list
    aggregate_only: bool
    index: Any = None

    @property
    def embedder(self) -> Any:
        return getattr(self.index, "embedder", None)

    @property
    def aliases(self) -> Any:
        return self.index.aliases if self.index is not None else None

    @property
    def column_texts(self) -> Any:
        return self.index.column_texts if self.index is not None else None

    @property
    def table_texts(self) -> Any:
        return self.index.table_texts if self.index is not None else None


def always(_: Candidate) -> bool:
    return True


@dataclass(frozen=True)
class Check:
    """An answer check. `order`: its place among all checks (verify runs them by it, and the first failure is the
    reason an answer is sent back); `applies(candidate)`: whether it is judged at all (a check that does not apply
    leaves no outcome); `problem(candidate)`: what is wrong ('' when nothing); `repair(candidate)`: a bounded
    rewrite of the plan that may fix it (None when it has none for this plan), with the `repair_note` the answer
    keeps; `repair_rank`: when several failed checks can repair, the lowest rank is tried, and only it."""
    name: str
    order: int
    problem: Callable[[Candidate], str]
    applies: Callable[[Candidate], bool] = always
    repair: Callable[[Candidate], Plan | None] | None = None
    repair_note: str = ""
    repair_rank: int = 0

    def judge(self, candidate: Candidate) -> Outcome:
        problem = self.problem(candidate)
        return Outcome(self.name, not problem, problem)


def first_problem(outcomes: list[Outcome]) -> str:
    """The reason of the first failed check ('' when every one passed)."""
    return next((c.detail for c in outcomes if not c.passed), "")
