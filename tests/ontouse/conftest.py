"""Answer loops over the made-up graphs of tests/ontouse_graphs.py, built once per test session, for the tests that
answer recorded plans with `answer_sql` (no model)."""

from __future__ import annotations

import pytest

from ontouse_graphs import GROVE, HARBOUR, PARKS, loop_of


@pytest.fixture(scope="session")
def parks_loop():
    return loop_of(PARKS)


@pytest.fixture(scope="session")
def grove_loop():
    return loop_of(GROVE)


@pytest.fixture(scope="session")
def harbour_loop():
    return loop_of(HARBOUR)
