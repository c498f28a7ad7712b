"""Checks that a plan and its result answer the question asked, before the answer is stated.

Each check is one registered `Check` object (check.py): a name, its place in the order, when it applies, the
problem it finds and, for some, a bounded repair of the plan. The modules of this package hold them by theme -
the answer's shape (shape.py), the things and the class the question asks for (asked.py), counts, sums and
averages (amounts.py), superlatives and rankings (rankings.py), joins (joins.py), exclusions and flags
(conditions.py), the values, numbers and columns the question names (named.py) - over shared readings of the view's
tables (tables.py) and of the plan (plan_parts.py). Every module of the package is imported here and each `Check`
it defines joins the registry: a new check is one new file in this folder.

`verify` runs every check that applies, in order; the answer record keeps the outcomes, so a reader sees which
checks an answer passed. A failed check goes back to the model like any other problem, and the answerer asks the
failed check for its repair (`repair_for`); when no attempt passes, the answer says "Unsure: <reason>; best
candidate: ..." instead of stating the candidate. What the data leaves ambiguous (a tie, a part of a name that
matches several values) is read by the answerer on the result that passed (ontouse/ambiguity.py).

The checks read the question's grammar (English closed-class words, question.py) and the plan's structure; they
hold no word of any domain."""

from __future__ import annotations

import importlib
import logging
import pkgutil
from typing import Any

from ..answer import Cell
from ..question import Question
from ..sqlplan.plan import Plan
from ..sqlplan.schema import Schema
from .check import Candidate, Check, Outcome, first_problem

log = logging.getLogger(__name__)

_REGISTRY: list[Check] = []


def registry() -> list[Check]:
    """Every check of the package's modules, in their order (found once, by importing each module)."""
    if not _REGISTRY:
        found: dict[str, Check] = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, Check) and found.setdefault(value.name, value) is not value:
                    raise ValueError(f"two checks are named {value.name!r}")
        orders = [c.order for c in found.values()]
        if len(set(orders)) != len(orders):
            raise ValueError("two checks share an order number")
        _REGISTRY.extend(sorted(found.values(), key=lambda c: c.order))
    return _REGISTRY


def verify(q: Question, plan: Plan, rows: list[list[Cell]], schema: Schema, mentions: list,
           aggregate_only: bool, index: Any = None) -> list[Outcome]:
    """Every check that applies to this question, plan and result, in order (the first failure is the reason).
    `index`: the linking.ValueIndex of the data, for the other names of a named thing and of a column and for the
    sentence-embedding model (without it, the checks that need them pass)."""
    candidate = Candidate(q, plan, rows, schema, mentions, aggregate_only, index)
    return [check.judge(candidate) for check in registry() if check.applies(candidate)]


def repair_for(outcomes: list[Outcome]) -> Check | None:
    """The failed check whose repair is tried (of those that have one, the lowest `repair_rank`), or None."""
    failed = {o.name for o in outcomes if not o.passed}
    able = [c for c in registry() if c.repair is not None and c.name in failed]
    return min(able, key=lambda c: c.repair_rank) if able else None


__all__ = ["Candidate", "Check", "Outcome", "first_problem", "registry", "repair_for", "verify"]
