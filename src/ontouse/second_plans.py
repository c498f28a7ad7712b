"""Second plans: a result that passed every check is asked for again, another way (the first request sampled, then
the request worded differently), within the question's budget of model calls; the answer stands when the second
plan's result is the same answer (agreement.py), and plans that disagree are arbitrated (arbitration.py). Part of
the answer loop (answerer.py: `AnswerLoop` is a `SecondPlans`)."""

from __future__ import annotations

import logging
from typing import Any

from rdflib import URIRef

from ontocore.errors import ModelBehaviorError, ModelServerError

from .agreement import same_answer
from .ambiguity import tie_probes
from .arbitration import Reading, Verdict, arbitrate, majority
from .attempt import MAX_TOKENS, QUERY_TIMEOUT, Attempt, extract_sql
from .question import Question
from .sqlplan.plan import Query, nested
from .storage.sparql import QueryError

log = logging.getLogger(__name__)

# the second plans of a result that passed every check, in this order, each while the budget of calls lasts:
# the first request sampled, then the request worded another way (the model first says what the answer is about)
SECOND_PLANS = ("sampled", "reworded")
SECOND_TEMPERATURE = 0.8
REASON_TOKENS = 80  # the reworded request's one line before the query


class SecondPlans:
    """Second plans and their agreement, for the answer loop (uses its model, store, schema, trace, `_run` and
    `_trial`; `_verdict` and `_readings` hold the last arbitration)."""

    def _doubt(self, best: Attempt) -> str:
        """Why the result of `best` is worth a second plan ("" when nothing leaves a doubt): the plan holds a query
        inside its conditions (IN / EXISTS / a scalar subquery), a reading of the question that no check reads. Every
        other shape (a join, a grouping, a ranking, a negation, results combined, a plan repaired by code or written
        after a failed attempt) is read by the checks: over the recorded runs of three development sets, its second
        plans made as many answers worse as better, while a nested plan's made answers only better
        (`python -m bench.second_plan_value`, bench/results/second_plan_value.md). So a plain reading costs one call."""
        plan = best.plan
        if isinstance(plan, Query) and nested(plan):
            return "the plan nests a query"
        return ""

    def _second_plans(self, q: Question, best: Attempt, first: list[dict[str, Any]], reworded: str, mentions: list,
                      budget: int) -> list[tuple[str, Attempt, bool | None]]:
        """Second plans for the result of `best`, asked another way (SECOND_PLANS: the `first` request sampled,
        then the `reworded` request), while `budget` lasts: (how, its run, whether its answer is the same: None
        when it gave no result to compare). A second plan that disagrees is arbitrated (arbitration.py); a third is
        asked only when no rule decides. Returns the plans asked; `self._verdict` holds the arbitration's."""
        out: list[tuple[str, Attempt, bool | None]] = []
        self._verdict = None
        readings = [Reading("first", best.plan, best.rows)]
        self._readings = [best]
        for how in SECOND_PLANS[:max(0, budget)]:
            if how == "sampled":
                messages, temperature, max_tokens = first, SECOND_TEMPERATURE, MAX_TOKENS
            else:
                messages = [first[0], {"role": "user", "content": reworded}]
                temperature, max_tokens = 0.0, MAX_TOKENS + REASON_TOKENS
            try:
                reply = self.model.chat(messages, tools=None, max_tokens=max_tokens, temperature=temperature)
            except (ModelServerError, ModelBehaviorError) as e:  # the first plan's answer is not lost to it
                log.warning("a second plan could not be asked (%s): the answer is not compared", e)
                self.trace.write("second_plan", how=how, error=str(e))
                break
            run = self._run(q, extract_sql(reply.content or ""), mentions)
            agrees = None if run.problem or run.compiled is None else self._agree(q, best, run)
            self.trace.write("second_plan", how=how, reply=reply.content, sql=run.sql, problem=run.problem,
                             rows=run.total, agrees=agrees)
            out.append((how, run, agrees))
            if agrees is None:
                continue  # no evidence: the next way is asked
            if agrees and len(readings) == 1:
                break
            readings.append(Reading(how, run.plan, run.rows))
            self._readings.append(run)
            if len(readings) == 2:
                self._verdict = arbitrate(q, readings, self.schema, self._identifiers)
                if self._verdict.chosen is not None:
                    break
            else:  # a third reading: the answer two of three plans give
                chosen = majority(readings, q.kind == "yesno", self._identifiers)
                first_two = self._verdict.detail if self._verdict is not None else ""
                self._verdict = Verdict("majority", chosen, "two of three plans give this answer") \
                    if chosen is not None else Verdict("undecided", None, first_two)
                break
        return out

    def _identifiers(self, iri: str) -> set[str]:
        """The values a thing is known by: its names and the keys its table holds once per row (its id, a code),
        so that an answer that gives the thing and one that gives its id are the same answer."""
        if iri not in self._known:
            props = set(self.schema.label_props)
            for t in self.schema.tables.values():
                props |= {c.prop for c in t.key_columns() if c.prop is not None}
                key = t.id_column()
                if key is not None and key.prop is not None:
                    props.add(key.prop)
            values: set[str] = set()
            if props:
                query = ("SELECT ?v WHERE { ?x ?p ?v . FILTER(isLiteral(?v)) VALUES ?p { %s } }"
                         % " ".join(URIRef(p).n3() for p in sorted(props)))
                try:
                    values = {str(r[0]) for r in self.store.select(
                        query, max_rows=50, timeout_s=QUERY_TIMEOUT, bindings={"x": URIRef(iri)}).rows}
                except (QueryError, TypeError):
                    values = set()
            self._known[iri] = values
        return self._known[iri]

    def _agree(self, q: Question, one: Attempt, other: Attempt) -> bool:
        """Do two plans' results give the same answer (agreement.same_answer)? A plan that keeps its top rows by
        a ranking (ORDER BY ... LIMIT k) is read with the values it ranked by beside its rows: "which X is the
        highest" answered with the X by one plan and with the top value by the other agree when that value is the
        X's."""
        if same_answer(one.rows, other.rows, q.kind == "yesno"):
            return True
        if q.kind == "yesno":
            return False
        for ranked, plain in ((one, other), (other, one)):
            rows = self._ranked_rows(q, ranked)
            if rows and same_answer(rows, plain.rows):
                return True
        return False

    def _ranked_rows(self, q: Question, run: Attempt) -> list | None:
        """The run's rows with the values its plan ranked them by (its first k rows, each with its ranking keys
        after its own columns): None when the plan keeps no top rows by a ranking, or the probe does not run."""
        probe = next(((p, k) for p, _, k, whole in tie_probes(run.plan) if whole), None)
        if probe is None:
            return None
        trial = self._trial(q, run, probe[0], "a ranking probe")
        return trial.rows[:probe[1]] if trial is not None else None
