"""Whether two plans for one question give the same answer (self-consistency).

A result that passed every check can still answer another question than the one asked: the other direction of a
relation, a column of the same name in another table, a join through the wrong link. The checks see none of
these in the words of the question. A second plan, written by the model another way (ask.py asks
for it: a differently worded request, or the same request sampled), lands on the same result when the reading
is clear, and elsewhere when it is not. Code compares the two results here; the model never judges them.

Two results agree when:
- both answer yes/no the same way (a yes/no question);
- or they hold the same rows, each row taken as a set of values and the rows as a set: the order of rows and of
  columns is not part of an answer, nor are duplicate rows;
- or the narrower result's rows are the wider one's, read on some of its columns (one plan also shows the count
  it ranked by, or the thing's name beside the thing). ask.py reads a plan that keeps its top rows by a ranking
  with the values it ranked by beside its rows, so "the X with the highest Y" agrees with "the highest Y" when
  that value is the X's.

A value is the thing it names when it names one (a name and the thing's IRI are the same value), and a number
is compared to 6 significant digits ("3" = "3.0"; an average computed in another order)."""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from .answer import Cell
from .results import boolean_of

MAX_WIDTH = 6  # wider results are compared only as wholes (the column subsets grow fast)


def _value(cell: Cell) -> str:
    key = cell.key("entity")
    try:
        number = float(key)
    except ValueError:
        return key
    return f"{number:.6g}"


def _rows(rows: Sequence[Sequence[Cell]], columns: Sequence[int] | None = None) -> set[tuple[str, ...]]:
    return {tuple(sorted(_value(row[i]) for i in (columns if columns is not None else range(len(row)))))
            for row in rows}


def same_answer(first: Sequence[Sequence[Cell]], second: Sequence[Sequence[Cell]], yesno: bool = False) -> bool:
    """Whether two plans' result rows give the same answer (the rules in the module docstring)."""
    if yesno:
        return boolean_of(list(first)) == boolean_of(list(second))
    if not first or not second:
        return not first and not second
    if _rows(first) == _rows(second):
        return True
    narrow, wide = sorted((first, second), key=lambda rows: len(rows[0]))
    width, wider = len(narrow[0]), len(wide[0])
    if width == wider or wider > MAX_WIDTH:
        return False
    wanted = _rows(narrow)
    return any(_rows(wide, columns) == wanted for columns in combinations(range(wider), width))
