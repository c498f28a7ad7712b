""""Which X ... N" and "which X ... both A and B" read by code over the links of a real knowledge graph's shape: a
table linked to itself (a course that requires another), two links between the same two tables (the question's
words say which), a named thing that is only a value of the asked things' own link (no class of its own), and
the asked class named by a plural English keeps from Latin or Greek, or by a word that changes in the plural.
Each rule in two made-up domains, through the answer loop without a model (`ontouse_graphs.loop_of`)."""

from __future__ import annotations

from ontouse.answerer import AnswerLoop
from ontouse.checks.asked import things_of_named, things_with_both
from ontouse.checks.tables import asked_tables
from ontouse.question import both_named, parse_question
from ontouse.written import asks_only_the_linked
from ontouse_graphs import HEAD, loop_of

COURSES = HEAD + """@prefix : <http://example.org/courses#> .
:Course a owl:Class ; rdfs:label "course" .
:Lecturer a owl:Class ; rdfs:label "lecturer" .
:requires a owl:ObjectProperty ; rdfs:label "requires" .
:taughtBy a owl:ObjectProperty ; rdfs:label "taught by" .
:reviewedBy a owl:ObjectProperty ; rdfs:label "reviewed by" .
:supervises a owl:ObjectProperty ; rdfs:label "supervises" .
:successor a owl:ObjectProperty ; rdfs:label "successor" .
:covers a owl:ObjectProperty ; rdfs:label "covers" .
:vera a :Lecturer ; rdfs:label "Vera Holm" ; :supervises :waves .
:omar a :Lecturer ; rdfs:label "Omar Diallo" .
:algebra a :Course ; rdfs:label "Algebra" ; :taughtBy :vera ; :reviewedBy :omar .
:logic a :Course ; rdfs:label "Logic" ; :taughtBy :omar ; :reviewedBy :vera .
:proofs a :Course ; rdfs:label "Proof Methods" ; :requires :algebra, :logic ; :taughtBy :vera, :ivo ;
    :covers :optics, :acoustics .
:calculus a :Course ; rdfs:label "Calculus" ; :requires :algebra ; :taughtBy :omar ; :reviewedBy :vera ;
    :covers :optics ; :successor :waves .
:waves a :Course ; rdfs:label "Wave Physics" ; :requires :calculus ; :taughtBy :ivo ; :covers :acoustics .
:ivo rdfs:label "Ivo Lund" .
:optics rdfs:label "optics" .
:acoustics rdfs:label "acoustics" .
"""

MODULES = HEAD + """@prefix : <http://example.org/modules#> .
:Module a owl:Class ; rdfs:label "module" .
:Engineer a owl:Class ; rdfs:label "engineer" .
:dependsOn a owl:ObjectProperty ; rdfs:label "depends on" .
:maintainedBy a owl:ObjectProperty ; rdfs:label "maintained by" .
:auditedBy a owl:ObjectProperty ; rdfs:label "audited by" .
:owns a owl:ObjectProperty ; rdfs:label "owns" .
:plugin a owl:ObjectProperty ; rdfs:label "plugin" .
:taggedWith a owl:ObjectProperty ; rdfs:label "tagged with" .
:kai a :Engineer ; rdfs:label "Kai Moen" ; :owns :ui .
:lia a :Engineer ; rdfs:label "Lia Stone" .
:core a :Module ; rdfs:label "Core" ; :maintainedBy :kai ; :auditedBy :lia .
:net a :Module ; rdfs:label "Net" ; :maintainedBy :lia ; :auditedBy :kai .
:web a :Module ; rdfs:label "Web" ; :dependsOn :core, :net ; :maintainedBy :lia, :zoe ; :taggedWith :fast, :safe ;
    :plugin :ui .
:cli a :Module ; rdfs:label "Shell" ; :dependsOn :core ; :maintainedBy :kai ; :auditedBy :kai ; :taggedWith :fast .
:ui a :Module ; rdfs:label "Panels" ; :dependsOn :web ; :maintainedBy :zoe ; :taggedWith :safe .
:zoe rdfs:label "Zoe Park" .
:fast rdfs:label "fast" .
:safe rdfs:label "safe" .
"""


def _names(rows) -> list[str]:
    return sorted(c.label or c.value for row in rows for c in row)


def _answer_names(ans) -> list[str]:
    return sorted(c.text() for row in ans.rows for c in row)


def _last_resort(ttl: str, question: str, wrong: str):
    """(loop, question, runs, the run code wrote or None) when the model's only plan was `wrong`
    (`AnswerLoop._written`)."""
    loop = loop_of(ttl)
    q, _ = loop._parse(question, question, "en")
    mentions = loop.index.mentions(q)
    runs = [loop._run(q, wrong, mentions)]
    return loop, q, runs, loop._written(q, runs, mentions)


def _by_code(ttl: str, question: str, wrong: str) -> list[str]:
    """What the loop answers when the model's only plan failed its checks (`AnswerLoop._written`)."""
    loop, q, runs, best = _last_resort(ttl, question, wrong)
    assert runs[0].problem or not runs[0].rows
    assert best is not None and not best.problem, question
    ans = loop._answer(q, best, runs)
    assert ans.state == "answered", ans.answer
    return _answer_names(ans)


def test_both_named_things_of_the_asked_table_itself_are_read_over_its_link_to_itself() -> None:
    assert _by_code(COURSES, "Which courses require both Algebra and Logic?",
                    "SELECT C.label FROM Course C WHERE C.prerequisite = 'Algebra'") == ["Proof Methods"]
    assert _by_code(MODULES, "Which modules depend on both Core and Net?",
                    "SELECT M.label FROM Module M WHERE M.dependency = 'Net'") == ["Web"]


def test_both_values_of_the_asked_things_own_link_are_read_on_it() -> None:
    """The named things have no class: they are only values of the asked table's link (shown by their names)."""
    assert _by_code(COURSES, "Which courses cover both optics and acoustics?",
                    "SELECT C.label FROM Course C WHERE C.topic = 'optics'") == ["Proof Methods"]
    assert _by_code(MODULES, "Which modules are tagged with both fast and safe?",
                    "SELECT M.label FROM Module M WHERE M.tag = 'fast'") == ["Web"]


def test_both_after_the_word_both_may_be_a_row_of_one_table_and_a_value_of_another() -> None:
    """"Both A and B": A a lecturer of the lecturer table, B a name that is only a value of the course's link."""
    loop = loop_of(COURSES)
    q = parse_question("Which courses are taught by both Vera Holm and Ivo Lund?")
    assert both_named(q, loop.index.mentions(q)) == [("Vera Holm", "Ivo Lund")]
    assert _by_code(COURSES, "Which courses are taught by both Vera Holm and Ivo Lund?",
                    "SELECT C.label FROM Course C WHERE C.teacher = 'Vera Holm'") == ["Proof Methods"]
    assert _by_code(MODULES, "Which modules are maintained by both Lia Stone and Zoe Park?",
                    "SELECT M.label FROM Module M WHERE M.maintainer = 'Zoe Park'") == ["Web"]
    # without "both", two values of different columns joined by "and" are no pair
    q = parse_question("Which courses are taught by Vera Holm and Ivo Lund?")
    assert both_named(q, loop.index.mentions(q)) == []


def test_of_two_links_between_two_tables_the_question_names_one() -> None:
    """A plan that found nothing (the lecturer's name read on the course): code reads the courses linked to the
    named lecturer by the link whose name the question says, of the two between the tables."""
    ans = loop_of(COURSES).answer_sql("Which courses are reviewed by Vera Holm?",
                                      "SELECT L.iri FROM Lecturer L JOIN Course C ON L.iri = C.reviewedBy "
                                      "WHERE C.label = 'Vera Holm'")
    assert ans.state == "answered" and _answer_names(ans) == ["Calculus", "Logic"], ans.answer
    ans = loop_of(MODULES).answer_sql("Which modules are audited by Kai Moen?",
                                      "SELECT E.iri FROM Engineer E JOIN Module M ON E.iri = M.auditedBy "
                                      "WHERE M.label = 'Kai Moen'")
    assert ans.state == "answered" and _answer_names(ans) == ["Net", "Shell"], ans.answer


def test_the_link_the_question_names_wins_over_a_link_the_other_way() -> None:
    """The lecturer's own link to courses (supervises) would be the one link from the lecturer's side; the
    question says "reviewed by", the course's link."""
    for ttl, text, wrong, wanted in (
            (COURSES, "Which courses are reviewed by Vera Holm?",
             "SELECT C.label FROM Course C WHERE C.reviewer = 'Vera Holm'", ["Calculus", "Logic"]),
            (MODULES, "Which modules are audited by Kai Moen?",
             "SELECT M.label FROM Module M WHERE M.inspector = 'Kai Moen'", ["Net", "Shell"])):
        loop = loop_of(ttl)
        q = parse_question(text)
        plan = things_of_named(q, loop.schema, loop.index.mentions(q), loop.index.table_texts)
        assert plan is not None and plan.joins[0].left.column in ("reviewedBy", "auditedBy"), plan
        assert _by_code(ttl, text, wrong) == wanted


def test_a_question_that_asks_more_than_the_linked_things_is_left_to_the_model() -> None:
    loop = loop_of(COURSES)
    for text in ("Which courses are reviewed by Vera Holm and taught by Omar Diallo?",  # a second named thing
                 "Which courses are not reviewed by Vera Holm?",  # a negation
                 "Which courses reviewed by Vera Holm have the most prerequisites?",  # a ranking
                 "How many courses are reviewed by Vera Holm?"):  # an amount
        q = parse_question(text)
        assert not asks_only_the_linked(q, loop.index.mentions(q)), text
    q = parse_question("Which courses are reviewed by Vera Holm?")
    assert asks_only_the_linked(q, loop.index.mentions(q))


def test_a_table_linked_to_itself_reads_the_things_that_have_the_named_one() -> None:
    """The model's plan answered with the named thing itself (it fails its checks): code reads the things whose
    link to their own table holds the named one."""
    assert _by_code(COURSES, "Which courses require Calculus?",
                    "SELECT C.label FROM Course C JOIN Course P ON C.requires = P.iri WHERE C.label = 'Calculus'"
                    ) == ["Wave Physics"]
    assert _by_code(MODULES, "Which modules depend on Web?",
                    "SELECT M.label FROM Module M JOIN Module D ON M.dependsOn = D.iri WHERE M.label = 'Web'"
                    ) == ["Panels"]


def test_plurals_that_change_the_word_name_their_table() -> None:
    graph = HEAD + """@prefix : <http://example.org/awards#> .
:Criterion a owl:Class ; rdfs:label "criterion" .
:Curriculum a owl:Class ; rdfs:label "curriculum" .
:Woman a owl:Class ; rdfs:label "woman" .
:Child a owl:Class ; rdfs:label "child" .
:c1 a :Criterion ; rdfs:label "Clarity" .
:k1 a :Curriculum ; rdfs:label "Core Science" .
:p1 a :Woman ; rdfs:label "Ann Roe" .
:h1 a :Child ; rdfs:label "Tom Roe" .
"""
    loop = loop_of(graph)
    for text, table in (("Which criteria weigh most?", "Criterion"), ("Which curricula include labs?", "Curriculum"),
                        ("Which women coach the team?", "Woman"), ("Which children attend the school?", "Child")):
        assert [t.name for t in asked_tables(parse_question(text), loop.schema)] == [table], text


def test_things_with_both_needs_a_link_to_each() -> None:
    loop = loop_of(COURSES)
    q = parse_question("Which lecturers cover both optics and acoustics?")  # no link of a lecturer to a topic
    assert things_with_both(q, loop.schema, loop.index.mentions(q), loop.index.table_texts) is None


def test_a_yes_no_question_about_two_named_things_is_answered_yes_by_their_link() -> None:
    """"Is N <relation> M?" when no plan of the model passed: yes when N's row is linked to M (the link the
    question names of the two between the tables; M a value of N's own link); no "no" from code, and none for
    two things of one table (which way their link goes, the question rarely says)."""
    for ttl, text, wrong in (
            (COURSES, "Is Calculus reviewed by Vera Holm?", "SELECT C.label FROM Course C WHERE C.reviewer = 'x'"),
            (COURSES, "Is Proof Methods taught by Ivo Lund?", "SELECT C.label FROM Course C WHERE C.tutor = 'x'"),
            (MODULES, "Is Shell audited by Kai Moen?", "SELECT M.label FROM Module M WHERE M.inspector = 'x'")):
        loop, q, runs, best = _last_resort(ttl, text, wrong)
        assert best is not None and "named_is_linked" in best.fixes, text
        assert loop._answer(q, best, runs).answer.startswith("Yes"), text
    for ttl, text in ((COURSES, "Is Algebra reviewed by Vera Holm?"),  # not linked: left to the model
                      (COURSES, "Does Algebra require Proof Methods?"),  # the other way round
                      (MODULES, "Is Web a plugin of Panels?"),
                      (MODULES, "Is Net audited by Lia Stone?")):
        assert _last_resort(ttl, text, "SELECT X.label FROM Nothing X")[3] is None, text


def test_a_link_of_a_table_to_itself_is_read_the_way_the_question_says_it() -> None:
    """"A requires B": A's link holds B; "A is the successor of B", "the plugins of B": B's link holds A (a noun
    followed by "of" or "by"); "a member of B" for a link named with its preposition is A's own."""
    from ontouse.checks.tables import said_backwards

    assert said_backwards(parse_question("Is Wave Physics the successor of Calculus?"), "successor")
    assert said_backwards(parse_question("Which modules are plugins of Web?"), "plugin")
    assert not said_backwards(parse_question("Does Proof Methods require Algebra?"), "requires")
    assert not said_backwards(parse_question("Is Ann a member of the Board?"), "memberOf")
    for ttl, text, wrong in (
            (COURSES, "Does Proof Methods require Algebra?", "SELECT C.label FROM Course C WHERE C.needs = 'x'"),
            (COURSES, "Is Wave Physics the successor of Calculus?", "SELECT C.label FROM Course C WHERE C.next = 'x'"),
            (MODULES, "Is Panels a plugin of Web?", "SELECT M.label FROM Module M WHERE M.addon = 'x'")):
        loop, q, runs, best = _last_resort(ttl, text, wrong)
        assert best is not None and loop._answer(q, best, runs).answer.startswith("Yes"), text
    assert _by_code(MODULES, "Which modules are plugins of Web?",
                    "SELECT M.label FROM Module M WHERE M.addon = 'Web'") == ["Panels"]
    assert _by_code(COURSES, "Which courses are successors of Calculus?",
                    "SELECT C.label FROM Course C WHERE C.next = 'Calculus'") == ["Wave Physics"]


def test_things_without_names_are_left_to_the_model(harbour_loop) -> None:
    """A table export's rows have no label: a list code wrote of them would be bare identifiers, so the loop
    leaves such a question to the model's plans (here: the sailings from a named berth)."""
    from ontouse.written import names_its_things
    from ontouse.sqlplan.plan import Col, Item, Query, Source

    bare = Query(select=(Item(Col("things", "Vessel", "iri")),), sources=(Source("Vessel", "things"),))
    assert not names_its_things(bare, harbour_loop.schema)
    named = Query(select=(Item(Col("things", "Course", "iri")),), sources=(Source("Course", "things"),))
    assert names_its_things(named, loop_of(COURSES).schema)
    text = "Which sailings left from North quay?"
    q, _ = harbour_loop._parse(text, text, "en")
    mentions = harbour_loop.index.mentions(q)
    assert things_of_named(q, harbour_loop.schema, mentions, harbour_loop.index.table_texts) is not None
    runs = [harbour_loop._run(q, "SELECT X.label FROM Nothing X", mentions)]
    assert harbour_loop._written(q, runs, mentions) is None


def test_a_no_that_the_link_the_question_names_contradicts_is_a_yes() -> None:
    """A plan of the model that read the link the wrong way round finds nothing ("no"); the link the question's
    own words name links the two: the answer is yes, with those triples. A link the question does not name
    changes nothing."""
    for ttl, text, wrong in (
            (COURSES, "Is Wave Physics the successor of Calculus?",
             "SELECT C.label FROM Course C JOIN Course D ON C.successor = D.iri "
             "WHERE C.label = 'Wave Physics' AND D.label = 'Calculus'"),
            (MODULES, "Is Panels a plugin of Web?",
             "SELECT M.label FROM Module M JOIN Module W ON M.plugin = W.iri "
             "WHERE M.label = 'Panels' AND W.label = 'Web'")):
        ans = loop_of(ttl).answer_sql(text, wrong)
        assert ans.state == "answered" and ans.answer.startswith("Yes"), (text, ans.answer)
        assert "named_is_linked" in ans.repairs and ans.support
    ans = loop_of(MODULES).answer_sql("Is Panels kept by Kai Moen?",  # "kept": no link of that name
                                      "SELECT M.label FROM Module M JOIN Engineer E ON M.maintainedBy = E.iri "
                                      "WHERE M.label = 'Panels' AND E.label = 'Kai Moen'")
    assert ans.answer.startswith("No") and "named_is_linked" not in ans.repairs, ans.answer


def test_words_inside_a_named_thing_ask_nothing_more() -> None:
    """"Only", "once" or a number inside a name the question says whole are part of the name."""
    graph = HEAD + """@prefix : <http://example.org/songs#> .
:Album a owl:Class ; rdfs:label "album" .
:Song a owl:Class ; rdfs:label "song" .
:onAlbum a owl:ObjectProperty ; rdfs:label "on album" .
:a1 a :Album ; rdfs:label "Only Twice 1999" .
:s1 a :Song ; rdfs:label "Low Tide" ; :onAlbum :a1 .
"""
    loop = loop_of(graph)
    q = parse_question("Which songs are on Only Twice 1999?")
    assert asks_only_the_linked(q, loop.index.mentions(q))
    q = parse_question("Which songs are only on Only Twice 1999?")
    assert not asks_only_the_linked(q, loop.index.mentions(q))


def test_a_plan_that_found_nothing_for_a_question_that_asks_only_the_linked_is_read_by_code(parks_loop) -> None:
    """The model compared the link with a name the question never says: nothing found; the question asks only
    for the rangers linked to the hut it names, which code reads (`linked_to_named`)."""
    ans = parks_loop.answer_sql("Which rangers work in Reeds?", "SELECT label FROM Ranger WHERE postedAt = 'Birch'")
    assert ans.state == "answered" and _answer_names(ans) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"], ans.answer
    assert "linked_to_named" in ans.repairs
    ans = loop_of(COURSES).answer_sql("Which courses are taught by Omar Diallo?",
                                      "SELECT C.label FROM Course C JOIN Lecturer L ON C.reviewedBy = L.iri "
                                      "WHERE L.label = 'Omar Diallo' AND C.label = 'Logic'")
    assert ans.state == "answered" and _answer_names(ans) == ["Calculus", "Logic"], ans.answer


def test_a_count_that_asks_nothing_else_is_counted_by_code() -> None:
    """When no plan of the model passed: "how many X are there?" counts X's rows, "how many R does N have?" N's
    values of its own link R named by the asked word, "how many X <relation> N?" the X linked to N; a question
    that says more is left to the model."""
    from ontouse.written import counted_by_code

    for ttl, text, wanted in ((COURSES, "How many courses are there?", "5"),
                              (MODULES, "How many modules do we have?", "5"),
                              (COURSES, "How many reviewers does Calculus have?", "1"),
                              (MODULES, "How many maintainers does Web have?", "2"),
                              (COURSES, "How many courses are reviewed by Vera Holm?", "2"),
                              (MODULES, "How many modules depend on Core?", "2")):
        loop, q, runs, best = _last_resort(ttl, text, "SELECT COUNT(*) FROM Nothing")
        assert best is not None and "counted_by_code" in best.fixes, text
        assert loop._answer(q, best, runs).answer.rstrip(".") == wanted, text
    loop = loop_of(COURSES)
    for text in ("How many courses are there in 2001?", "How many courses with labs are there?",
                 "How many courses are not reviewed by Vera Holm?", "How many courses does the lecturer teach?"):
        q = parse_question(text)
        assert counted_by_code(q, loop.schema, loop.index.mentions(q), loop.index.table_texts) is None, text


def test_a_count_of_0_the_model_stands_by_gives_way_to_the_things_code_counts() -> None:
    """The model's plan counts the rangers of another hut (0) three times; the question asks only for the rangers
    linked to the hut it names, which code counts with the triples that back it: that count is the answer. A
    question code cannot read keeps the model's 0."""
    from ontouse_graphs import PARKS, view
    from test_ask_loop import ScriptedModel, sql

    zero = sql("SELECT COUNT(*) FROM Ranger WHERE postedAt = 'Birch'")
    store, schema = view(PARKS)
    ans = AnswerLoop(store, ScriptedModel(zero, zero, zero), schema=schema).ask("How many rangers work in Reeds?")
    assert ans.state == "answered" and ans.answer.rstrip(".") == "3" and "counted_by_code" in ans.repairs, ans.answer
    ans = AnswerLoop(store, ScriptedModel(zero, zero, zero), schema=schema).ask("How many rangers work in Birch?")
    assert "counted_by_code" not in ans.repairs, ans.answer  # code's own count is 0 too: no evidence, not stated


def test_a_value_that_is_only_the_counted_word_names_no_thing() -> None:
    """"How many kilns are there?" where "kiln" is also a value of a pot's firing method: the kilns are counted."""
    from ontouse.written import counted_by_code

    graph = HEAD + """@prefix : <http://example.org/pottery#> .
:Kiln a owl:Class ; rdfs:label "kiln" .
:Pot a owl:Class ; rdfs:label "pot" .
:firedIn a owl:ObjectProperty ; rdfs:label "fired in" .
:method a owl:ObjectProperty ; rdfs:label "method" .
:k1 a :Kiln ; rdfs:label "North Kiln" .
:k2 a :Kiln ; rdfs:label "South Kiln" .
:p1 a :Pot ; rdfs:label "Tall Jar" ; :firedIn :k1 ; :method :kilnfired .
:p2 a :Pot ; rdfs:label "Bowl" ; :method :pit .
:kilnfired rdfs:label "kiln" .
:pit rdfs:label "pit" .
"""
    loop = loop_of(graph)
    q = parse_question("How many kilns are there?")
    plan = counted_by_code(q, loop.schema, loop.index.mentions(q), loop.index.table_texts)
    assert plan is not None and plan.sources[0].table == "Kiln", plan
