"""An exclusion over rows that share a reference with the asked things (ontouse.checks.conditions): "which stalls are
in markets that do not hold a food permit?" joins the stalls to the permit rows of their market by the market's
code both hold; `permit_type != 'food'` over those rows keeps every stall whose market holds any other permit, and is
sent back. Two made-up domains written inline, as a database export keeps them (key values beside `ref-` links): a town's
market stalls and permits, a firm's staff and the equipment of their offices."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

MARKETS = HEAD + """
@prefix : <http://example.org/markets#> .
:m1 a :Market ; :market_code "NQ" ; :market_name "North Quay" .
:m2 a :Market ; :market_code "OS" ; :market_name "Old Square" .
:s1 a :Stall ; :stall_name "Fig and Thistle" ; :market_code "NQ" ; :ref-market_code :m1 .
:s2 a :Stall ; :stall_name "Copper Pan" ; :market_code "NQ" ; :ref-market_code :m1 .
:s3 a :Stall ; :stall_name "Loom Corner" ; :market_code "OS" ; :ref-market_code :m2 .
:p1 a :Permit ; :market_code "NQ" ; :permit_type "food" ; :ref-market_code :m1 .
:p2 a :Permit ; :market_code "NQ" ; :permit_type "music" ; :ref-market_code :m1 .
:p3 a :Permit ; :market_code "OS" ; :permit_type "music" ; :ref-market_code :m2 .
:p4 a :Permit ; :market_code "OS" ; :permit_type "crafts" ; :ref-market_code :m2 .
"""

OFFICES = HEAD + """
@prefix : <http://example.org/offices#> .
:o1 a :Office ; :office_code "A1" ; :office_town "Brill" .
:o2 a :Office ; :office_code "B2" ; :office_town "Cley" .
:e1 a :Employee ; :employee_name "Wren Hale" ; :office_code "A1" ; :ref-office_code :o1 .
:e2 a :Employee ; :employee_name "Juno Park" ; :office_code "B2" ; :ref-office_code :o2 .
:k1 a :Equipment ; :office_code "A1" ; :device "printer" ; :ref-office_code :o1 .
:k2 a :Equipment ; :office_code "A1" ; :device "scanner" ; :ref-office_code :o1 .
:k3 a :Equipment ; :office_code "B2" ; :device "scanner" ; :ref-office_code :o2 .
:k4 a :Equipment ; :office_code "B2" ; :device "projector" ; :ref-office_code :o2 .
"""


@pytest.fixture(scope="module")
def markets() -> AnswerLoop:
    store, schema = view(MARKETS)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def offices() -> AnswerLoop:
    store, schema = view(OFFICES)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_not_equal_over_rows_of_the_same_reference_is_sent_back(markets: AnswerLoop, offices: AnswerLoop) -> None:
    """North Quay holds a food permit and a music one: `!= 'food'` keeps its stalls; the office in Brill has a
    printer and a scanner: `!= 'printer'` keeps Wren Hale."""
    ans = markets.answer_sql("Which stalls are in markets that do not hold a food permit?",
                             "SELECT S.stall_name FROM Stall AS S JOIN Permit AS P ON S.market_code = P.market_code "
                             "WHERE P.permit_type != 'food'")
    assert ans.state != "answered" and "exclusion_kept" in str(ans.checks)
    ans = offices.answer_sql("Which employees work in offices that do not have a printer?",
                             "SELECT E.employee_name FROM Employee AS E JOIN Equipment AS Q ON "
                             "E.office_code = Q.office_code WHERE Q.device != 'printer'")
    assert ans.state != "answered" and "exclusion_kept" in str(ans.checks)


def test_the_exclusion_of_the_referred_rows_is_stated(markets: AnswerLoop, offices: AnswerLoop) -> None:
    """The same questions with the things that have it excluded: Loom Corner; Juno Park."""
    ans = markets.answer_sql("Which stalls are in markets that do not hold a food permit?",
                             "SELECT stall_name FROM Stall WHERE market_code NOT IN "
                             "(SELECT market_code FROM Permit WHERE permit_type = 'food')")
    assert ans.state == "answered" and ans.values() == ["Loom Corner"]
    ans = offices.answer_sql("Which employees work in offices that do not have a printer?",
                             "SELECT employee_name FROM Employee WHERE office_code NOT IN "
                             "(SELECT office_code FROM Equipment WHERE device = 'printer')")
    assert ans.state == "answered" and ans.values() == ["Juno Park"]
