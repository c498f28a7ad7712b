"""What the data leaves ambiguous in a result that passed the checks, read by the answerer and never sent back to
the model (no plan can fix it): a ranking whose k-th value more things share (`tie_probes`, `tied_rows`), and a part
of a name that matches several values (`name_probes`)."""

from __future__ import annotations

from dataclasses import replace

from ontocore.text import fold

from .answer import Answer, Cell
from .attempt import Attempt
from .checks.check import Outcome
from .checks.plan_parts import top_conditions
from .phrases import Phrases
from .question import DOWN, ORDINAL, UP, Question, asks_several
from .results import answer_text, unsure_text
from .sqlplan.plan import Agg, Cmp, Col, Item, Like, Lit, Plan, Query, Scalar, walk


MAX_TIED = 50  # the most rows a probe reads: past a ranked query's limit, or of a name's matching values
RANKING_WORDS = UP | DOWN | ORDINAL | {"youngest"}  # the words that ask for the top of a ranking


def tie_probes(plan: Plan) -> list[tuple[Query, int, int, bool]]:
    """The queries of a plan that keep their first k rows by a ranking (ORDER BY ... LIMIT k: the plan itself, or
    a subquery that picks a thing by rank), each as a probe: the same query that also returns its ranking keys and
    reads up to MAX_TIED rows past k. Each is (probe, the query's own column count, k, whether it is the plan
    itself)."""
    out = []
    for n in walk(plan):
        if isinstance(n, Query) and n.order_by and n.limit and not any(isinstance(o.expr, Lit) for o in n.order_by):
            keys = tuple(Item(o.expr, f"ranking_key_{i + 1}") for i, o in enumerate(n.order_by))
            out.append((replace(n, select=n.select + keys, limit=n.limit + MAX_TIED), len(n.select), n.limit,
                        n is plan))
    return out


def name_probes(q: Question, plan: Plan) -> list[tuple[Query, str]]:
    """The plan's LIKE '%N%' conditions whose N is a name the question says (capitalised or quoted: "Mr. Lind"),
    each as a probe of the distinct values of that column it matches (up to MAX_TIED): when a part of a name
    matches two people, the answer mixes theirs. (probe, N)."""
    said = {w for n in q.names + q.quoted for w in [fold(n)] + fold(n).split()}
    out = []
    for n in walk(plan):
        if not isinstance(n, Query):
            continue
        for c in top_conditions(n.where):
            if not isinstance(c, Like) or c.negated or not isinstance(c.expr, Col):
                continue
            text = c.pattern.strip("%")
            source = next((s for s in n.sources if s.alias.lower() == c.expr.alias.lower()), None)
            if source is None or not text or "%" in text or "_" in text or fold(text) not in said:
                continue
            out.append((Query(select=(Item(c.expr),), sources=(source,), where=c, distinct=True,
                              limit=MAX_TIED), text))
    return out


def extreme_picked(plan: Plan) -> bool:
    """Does the plan keep the rows whose value equals a subquery's MIN or MAX of it (`WHERE x = (SELECT MIN(x)
    ...)`): the top of a ranking, with every row that shares it?"""
    if not isinstance(plan, Query):
        return False
    for c in top_conditions(plan.where):
        if not isinstance(c, Cmp) or c.op != "=":
            continue
        for side in (c.left, c.right):
            sub = side.query if isinstance(side, Scalar) else None
            if isinstance(sub, Query) and len(sub.select) == 1 and not sub.group_by and isinstance(
                    sub.select[0].expr, Agg) and sub.select[0].expr.func in ("min", "max"):
                return True
    return False


def tied_rows(rows: list[list[Cell]], width: int, k: int) -> int:
    """How many rows of a tie probe's result past the k-th share the k-th row's ranking keys (the columns past
    `width`) but not its values (the first `width`): 0 when the first k rows are the only top k."""
    if len(rows) <= k or k < 1:
        return 0
    def values(row: list[Cell]) -> tuple[str, ...]:
        return tuple(c.key("entity") for c in row[:width])
    def keys(row: list[Cell]) -> tuple[str, ...]:
        return tuple(c.value for c in row[width:])
    last, kept, tied = rows[k - 1], {values(r) for r in rows[:k]}, set()
    for row in rows[k:]:
        if keys(row) != keys(last):
            break
        tied.add(values(row))
    return len(tied - kept)


class AmbiguityProbes:
    """The probes run on a result that passed, and what the answer says of what they find, for the answer loop
    (uses its `_trial` and `_answer`)."""

    def _tie(self, q: Question, run: Attempt) -> tuple[bool, str, list | None]:
        """Does the result keep k things by a ranking that more things share (the question asks for the one with
        the most, and two have it)? (whether the plan ranks at all, the reason of a tie or "", and the rows of all
        the tied things when the tie is in the plan's own result: None when it is in a subquery's pick)."""
        probes = tie_probes(run.plan)
        for probe, width, k, whole in probes:
            # (a subquery that reads its outer query's rows runs only inside it: no probe)
            trial = self._trial(q, run, probe, "a tie probe")
            if trial is None:
                continue
            extra = tied_rows(trial.rows, width, k)
            if extra:
                value = "; ".join(c.text() for c in trial.rows[k - 1][width:])
                if whole and k == 1:
                    reason = (f"the ranking ties: {1 + extra} results share the top ranked value ({value}), and "
                              "LIMIT 1 keeps one of them at random")
                elif whole:
                    reason = (f"the ranking ties: {extra} more result(s) share the ranked value ({value}) of the "
                              f"last of the top {k}, and LIMIT {k} keeps some of them at random")
                else:
                    reason = (f"the ranking in a subquery ties: {k + extra} things share its ranked value "
                              f"({value}), and its LIMIT {k} picks among them at random")
                return True, reason, [r[:width] for r in trial.rows[:k + extra]] if whole else None
        if extreme_picked(run.plan) and set(q.words) & RANKING_WORDS and not asks_several(q):
            things = {tuple(c.key("entity") for c in r) for r in run.rows}
            if len(things) > 1:  # the one with the least, asked for, and several have it
                return True, (f"the ranking ties: {len(things)} results share the top ranked value, and the "
                              "question asks for one"), run.rows
        return bool(probes), "", None

    def _mixed_names(self, q: Question, run: Attempt) -> tuple[bool, str]:
        """Does a part of a name the question says (LIKE '%Lind%') match several different values, while the
        result has several rows (the answer may mix two people's)? (whether the plan matches a name by a part,
        the reason or "")."""
        probes = name_probes(q, run.plan)
        if len(run.rows) < 2:
            return bool(probes), ""
        for probe, text in probes:
            trial = self._trial(q, run, probe, "a name probe")
            if trial is None:
                continue
            values = sorted({r[0].text() for r in trial.rows if r})
            if len(values) > 1:
                col = probe.select[0].expr
                return True, (f"'{text}' matches {len(values)} different values of {col.table}.{col.column} "
                              f"({'; '.join(values[:5])}{'; ...' if len(values) > 5 else ''}), and the answer may "
                              "mix theirs: say which one")
        return bool(probes), ""

    def _ambiguous(self, q: Question, ans: Answer, best: Attempt, runs: list[Attempt], words: Phrases) -> Answer | None:
        """What the data leaves ambiguous in a result that passed (ambiguity.py): a tied ranking or a part of a
        name that matches several values, recorded as checks. A tied top where the question asks for things is
        stated whole; any other tie or mixed name makes the answer "Unsure" (returned); None when the answer goes
        on."""
        ranks, tie, tied = self._tie(q, best)
        if ranks:
            ans.checks.append(Outcome("ranking_unique", not tie, tie).to_dict())
        named, mixed = self._mixed_names(q, best)
        if named:
            ans.checks.append(Outcome("one_name_matched", not mixed, mixed).to_dict())
        if tie and not mixed and tied and isinstance(best.plan, Query) and best.plan.limit == 1 \
                and not best.plan.offset and asks_several(q):
            # a ranking whose top is tied, and the question asks for things, not exactly one ("which rangers
            # earn the most"): every tied thing is stated, and the tie is said
            widened = self._trial(q, best, replace(best.plan, limit=len(tied)), "the tied rows")
            if widened is not None and len(widened.rows) == len(tied):
                widened.fixes, widened.checks = best.fixes, best.checks
                said = Outcome("ranking_unique", True, f"the tie is stated whole: {tie}").to_dict()
                stated = self._answer(q, widened, runs, words)
                if stated.state == "answered":
                    stated.checks = [c for c in stated.checks if c["check"] != "ranking_unique"] + [said]
                    stated.answer = f"{stated.answer.rstrip('.')} ({words.get('tied', n=len(tied))})."
                return stated
        if tie or mixed:  # the one with the most, when several have it; a part of a name that two things share
            rows = tied or best.rows
            candidate = answer_text(q, ans.columns, rows, None, len(rows), words)
            ans.state, ans.error, ans.rows = "unsure", tie or mixed, []
            ans.answer = unsure_text(words.reason("doubt", ans.error), candidate, words)
            return ans
        return None
