"""Question shapes of real knowledge graphs, on graphs shaped like them (individuals as values, links that hold
several values per thing, years beside full dates, several unconnected vocabularies in one graph), each rule in two
made-up domains, through `AnswerLoop.answer_sql` (no model):

- a link joined to two rows reads two of its values (compile `_join`: "both X and Y"), and one joined row's name
  required to be two names at once is read as "both" (repairs `both_joined`);
- a column of years that also holds full dates is compared and ordered as dates (compile_expr `_CALENDAR`);
- "which came first, A or B?" answered with A is a choice, not the question restated (verify `restated_problem`);
- "how many X does N have" counted over N's own link is not "the value itself counted" (checks
  `value_echo_problem`);
- a plan naming what the view lacks never reaches the store: "No data available" with what was looked for;
- a graph of several unconnected vocabularies is shown part by part: the part of the values the question names, the
  same prompt for every question of that part (ask `_part_for`, `_part_prompt`; view_prompt `parts`)."""

from __future__ import annotations

from functools import lru_cache

from ontouse.answerer import FULL_VIEW_TOKENS, AnswerLoop
from ontouse.question import parse_question
from ontouse.relevance import Relevance
from ontouse.view_prompt import estimate_tokens, parts, shown_tables
from ontouse_graphs import HEAD, NoModel, store_of

KITCHEN = HEAD + """@prefix : <http://example.org/kitchen#> .
:Recipe a owl:Class ; rdfs:label "recipe" .
:Herb a owl:Class ; rdfs:label "herb" .
:uses a owl:ObjectProperty ; rdfs:label "uses" .
:basil a :Herb ; rdfs:label "basil" .
:mint a :Herb ; rdfs:label "mint" .
:thyme a :Herb ; rdfs:label "thyme" .
:r1 a :Recipe ; rdfs:label "Green Pesto" ; :uses :basil, :mint ; :firstServed "1998"^^xsd:gYear .
:r2 a :Recipe ; rdfs:label "Summer Salad" ; :uses :mint ; :firstServed "2003-06-01"^^xsd:date .
:r3 a :Recipe ; rdfs:label "Herb Butter" ; :uses :basil, :thyme, :mint ; :firstServed "2001"^^xsd:gYear .
:r4 a :Recipe ; rdfs:label "Plain Rice" ; :firstServed "1990"^^xsd:gYear .
"""

TRAILS = HEAD + """@prefix : <http://example.org/trails#> .
:Trail a owl:Class ; rdfs:label "trail" .
:Landmark a owl:Class ; rdfs:label "landmark" .
:Ranger a owl:Class ; rdfs:label "ranger" .
:passes a owl:ObjectProperty ; rdfs:label "passes" .
:keptBy a owl:ObjectProperty ; rdfs:label "kept by" .
:lake a :Landmark ; rdfs:label "Blue Lake" .
:hut a :Landmark ; rdfs:label "Stone Hut" .
:falls a :Landmark ; rdfs:label "Echo Falls" .
:g1 a :Ranger ; rdfs:label "Ada Voss" .
:g2 a :Ranger ; rdfs:label "Ben Ruiz" .
:t1 a :Trail ; rdfs:label "North Loop" ; :passes :lake, :hut ; :opened "1971-05-02"^^xsd:date ; :keptBy :g1, :g2 .
:t2 a :Trail ; rdfs:label "Ridge Path" ; :passes :hut, :falls ; :opened "1968"^^xsd:gYear ; :keptBy :g2 .
:t3 a :Trail ; rdfs:label "Shore Walk" ; :passes :lake ; :opened "1980"^^xsd:gYear ; :keptBy :g1 .
"""


@lru_cache(maxsize=None)
def _answerer(ttl: str) -> AnswerLoop:
    return AnswerLoop(store_of(ttl), NoModel())


def _names(ans) -> list[str]:
    return sorted(c.text() for row in ans.rows for c in row)


def test_a_link_joined_to_two_rows_reads_two_of_its_values() -> None:
    ans = _answerer(KITCHEN).answer_sql(
        "Which recipes use both basil and mint?",
        "SELECT R.iri FROM Recipe R JOIN Herb H1 ON R.uses = H1.iri JOIN Herb H2 ON R.uses = H2.iri "
        "WHERE H1.label = 'basil' AND H2.label = 'mint'")
    assert ans.state == "answered", ans.error
    assert _names(ans) == ["Green Pesto", "Herb Butter"]
    ans = _answerer(TRAILS).answer_sql(
        "Which trails pass both Blue Lake and Stone Hut?",
        "SELECT T.label FROM Trail T JOIN Landmark A ON T.passes = A.iri JOIN Landmark B ON T.passes = B.iri "
        "WHERE A.label = 'Blue Lake' AND B.label = 'Stone Hut'")
    assert ans.state == "answered", ans.error
    assert _names(ans) == ["North Loop"]


def test_one_joined_name_equal_to_two_names_reads_both() -> None:
    ans = _answerer(KITCHEN).answer_sql(
        "Which recipes use both thyme and mint?",
        "SELECT R.iri FROM Recipe R JOIN Herb H ON R.uses = H.iri WHERE H.label = 'thyme' AND H.label = 'mint'")
    assert ans.state == "answered", ans.error
    assert _names(ans) == ["Herb Butter"] and "both_joined" in ans.repairs
    ans = _answerer(TRAILS).answer_sql(
        "Which trails are kept by both Ada Voss and Ben Ruiz?",
        "SELECT T.label FROM Trail T JOIN Ranger G ON T.keptBy = G.iri WHERE G.label = 'Ada Voss' "
        "AND G.label = 'Ben Ruiz'")
    assert ans.state == "answered", ans.error
    assert _names(ans) == ["North Loop"] and "both_joined" in ans.repairs


def test_years_beside_full_dates_compare_and_order_as_dates() -> None:
    ans = _answerer(KITCHEN).answer_sql(
        "Was Summer Salad first served before Herb Butter?",
        "SELECT COUNT(*) FROM Recipe A, Recipe B WHERE A.label = 'Summer Salad' AND B.label = 'Herb Butter' "
        "AND A.firstServed < B.firstServed")
    assert ans.boolean is False, ans.answer
    ans = _answerer(KITCHEN).answer_sql(
        "Which recipe was first served earliest?", "SELECT label FROM Recipe ORDER BY firstServed LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["Plain Rice"], ans.answer
    ans = _answerer(TRAILS).answer_sql(
        "Was North Loop opened before Shore Walk?",
        "SELECT COUNT(*) FROM Trail A, Trail B WHERE A.label = 'North Loop' AND B.label = 'Shore Walk' "
        "AND A.opened < B.opened")
    assert ans.boolean is True, ans.answer
    ans = _answerer(TRAILS).answer_sql(
        "Which trail opened last?", "SELECT label FROM Trail ORDER BY opened DESC LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["Shore Walk"], ans.answer


def test_a_choice_between_two_named_things_is_not_the_question_restated() -> None:
    ans = _answerer(KITCHEN).answer_sql(
        "Which was first served earlier, Green Pesto or Summer Salad?",
        "SELECT label FROM Recipe WHERE label IN ('Green Pesto', 'Summer Salad') ORDER BY firstServed LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["Green Pesto"], ans.error
    ans = _answerer(TRAILS).answer_sql(
        "Which opened earlier, Ridge Path or Shore Walk?",
        "SELECT label FROM Trail WHERE label = 'Ridge Path' OR label = 'Shore Walk' ORDER BY opened LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["Ridge Path"], ans.error
    # one name, returned as it was asked, is still the question restated
    ans = _answerer(TRAILS).answer_sql("Which trail is Ridge Path?",
                                       "SELECT label FROM Trail WHERE label = 'Ridge Path'")
    assert ans.state != "answered"


def test_a_count_of_what_a_named_value_links_to_is_not_the_value_counted() -> None:
    ans = _answerer(KITCHEN).answer_sql("How many herbs does Herb Butter use?",
                                        "SELECT COUNT(uses) FROM Recipe WHERE label = 'Herb Butter'")
    assert ans.state == "answered" and ans.answer.startswith("3"), ans.error
    ans = _answerer(TRAILS).answer_sql("How many landmarks does Ridge Path pass?",
                                       "SELECT COUNT(passes) FROM Trail WHERE label = 'Ridge Path'")
    assert ans.state == "answered" and ans.answer.startswith("2"), ans.error


def test_what_the_view_lacks_is_no_data_with_what_was_looked_for() -> None:
    ans = _answerer(KITCHEN).answer_sql("What does Green Pesto cost?",
                                        "SELECT price FROM Recipe WHERE label = 'Green Pesto'")
    assert ans.state == "no_data" and "price" in ans.answer and not ans.sparql
    ans = _answerer(TRAILS).answer_sql("How many bridges are there?", "SELECT COUNT(*) FROM Bridge")
    assert ans.state == "no_data" and "Bridge" in ans.answer and ans.view_misses == ["Bridge"]


def test_a_graph_of_unconnected_vocabularies_is_shown_part_by_part() -> None:
    answerer = AnswerLoop(store_of(KITCHEN + TRAILS.replace(HEAD, "")), NoModel())
    # (a view this small is shown whole; its parts are set here as a larger view's would be)
    assert not answerer.parts and estimate_tokens(answerer.system) <= FULL_VIEW_TOKENS
    tables = shown_tables(answerer.schema, small_parts=True)  # (a small part is shown too, on its own)
    answerer.parts = parts(answerer.schema, tables)
    answerer.relevance = Relevance(answerer.schema, tables)
    names = [{t.name for t in part} for part in answerer.parts]
    assert {"Recipe", "Herb"} in names and {"Trail", "Landmark", "Ranger"} in names

    def part_of(question: str) -> set[str]:
        return names[answerer._part_for(question, answerer.index.mentions(parse_question(question)))]

    assert part_of("Which recipes use basil?") == {"Recipe", "Herb"}
    assert part_of("Which trails pass Echo Falls?") == {"Trail", "Landmark", "Ranger"}
    assert part_of("How many rangers are there?") == {"Trail", "Landmark", "Ranger"}
    first = answerer._part_prompt(answerer._part_for("Which recipes use mint?", []))
    assert answerer._part_prompt(answerer._part_for("How many herbs are there?", [])) == first
    assert "CREATE TABLE Recipe" in first and "CREATE TABLE Trail" not in first


def test_a_request_worded_as_a_question_is_not_a_yes_no_question() -> None:
    for text in ("Can you list the recipes that use mint?", "Could you please show me the trails kept by Ada Voss?",
                 "Do you know which herbs Green Pesto uses?"):
        assert parse_question(text).kind == "other", text
    assert parse_question("Can you tell me how many trails there are?").kind == "count"
    for text in ("Can rangers keep two trails?", "Does Green Pesto use mint?", "Is Blue Lake on a trail?"):
        assert parse_question(text).kind == "yesno", text
    ans = _answerer(KITCHEN).answer_sql("Can you list the recipes that use mint?",
                                        "SELECT R.label FROM Recipe R JOIN Herb H ON R.uses = H.iri "
                                        "WHERE H.label = 'mint'")
    assert ans.state == "answered" and ans.boolean is None and _names(ans) == ["Green Pesto", "Herb Butter",
                                                                                "Summer Salad"]


def test_a_tie_at_the_top_is_stated_whole_when_several_things_are_asked() -> None:
    """North Loop and Ridge Path pass two landmarks each (a tie at the top); mint is used by three recipes, basil by
    two, thyme by one (no tie)."""
    ans = _answerer(TRAILS).answer_sql(
        "Which trails pass the most landmarks?",
        "SELECT T.label FROM Trail T JOIN Landmark L ON T.passes = L.iri GROUP BY T.iri ORDER BY COUNT(*) DESC LIMIT 1")
    assert ans.state == "answered" and sorted(r[0].text() for r in ans.rows) == ["North Loop", "Ridge Path"]
    assert ans.answer.endswith("(tied: 2 share the ranked value).") and ans.support
    ans = _answerer(TRAILS).answer_sql(
        "Which trail passes the most landmarks?",
        "SELECT T.label FROM Trail T JOIN Landmark L ON T.passes = L.iri GROUP BY T.iri ORDER BY COUNT(*) DESC LIMIT 1")
    assert ans.state == "unsure" and "North Loop" in ans.answer and "Ridge Path" in ans.answer
    ans = _answerer(KITCHEN).answer_sql(
        "Which herbs are used by the most recipes?",
        "SELECT H.label FROM Recipe R JOIN Herb H ON R.uses = H.iri GROUP BY H.iri ORDER BY COUNT(*) DESC LIMIT 1")
    assert ans.state == "answered" and [r[0].text() for r in ans.rows] == ["mint"], ans.answer  # one top
    ans = _answerer(KITCHEN).answer_sql(
        "Which two herbs are used by the most recipes?",
        "SELECT H.label FROM Recipe R JOIN Herb H ON R.uses = H.iri GROUP BY H.iri ORDER BY COUNT(*) DESC LIMIT 2")
    assert ans.state == "answered" and sorted(r[0].text() for r in ans.rows) == ["basil", "mint"], ans.answer
    ans = _answerer(KITCHEN).answer_sql(
        "Which herb is used by the fewest recipes?",
        "SELECT H.label FROM Recipe R JOIN Herb H ON R.uses = H.iri GROUP BY H.iri ORDER BY COUNT(*) LIMIT 1")
    assert ans.state == "answered" and [r[0].text() for r in ans.rows] == ["thyme"], ans.answer


def test_a_small_table_of_values_lists_its_names_in_the_view() -> None:
    from ontouse.view_prompt import schema_ddl

    kitchen = _answerer(KITCHEN).schema
    assert kitchen.table("Herb").values == ["basil", "mint", "thyme"]
    assert "the rows: 'basil', 'mint', 'thyme'" in schema_ddl(kitchen)
    trails = _answerer(TRAILS).schema
    assert trails.table("Landmark").values == ["Blue Lake", "Echo Falls", "Stone Hut"]
    assert not trails.table("Trail").values  # things with values of their own are not values
    assert not trails.table("Ranger").values  # two rows: their names are the samples already


CRYPTIC = HEAD + """@prefix : <http://example.org/cryptic#> .
:spd a owl:DatatypeProperty ; rdfs:label "top speed" .
:tmp a owl:DatatypeProperty ; rdfs:label "core temperature" .
:b1 a :Bike ; rdfs:label "Arrow" ; :spd 42 .
:b2 a :Bike ; rdfs:label "Comet" ; :spd 38 .
:r1 a :Reactor ; rdfs:label "Unit 1" ; :tmp 310 .
:r2 a :Reactor ; rdfs:label "Unit 2" ; :tmp 295 .
"""


def test_a_column_with_a_cryptic_name_shows_its_label() -> None:
    from ontouse.view_prompt import schema_ddl

    ddl = schema_ddl(_answerer(CRYPTIC).schema)
    assert "spd INTEGER -- top speed; " in ddl and "tmp INTEGER -- core temperature; " in ddl


def test_a_view_too_large_for_the_budget_is_shown_whole_with_less_detail() -> None:
    from ontouse.view_prompt import DETAILS, fitting_detail

    answerer = _answerer(TRAILS)
    sizes = [estimate_tokens(answerer._render(level)) for level in range(len(DETAILS))]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] < sizes[0]
    assert fitting_detail(answerer._render, sizes[0]) == 0
    assert fitting_detail(answerer._render, sizes[-1]) == len(DETAILS) - 1
    assert fitting_detail(answerer._render, sizes[-1] - 1) is None
    # the same prompt start for every question of the ontology (kept by the model once)
    q1, q2 = "Which trails pass Blue Lake?", "How many rangers are there?"
    assert answerer._system_for(q1, answerer.index.mentions(parse_question(q1))) == answerer.system
    assert answerer._system_for(q2, answerer.index.mentions(parse_question(q2))) == answerer.system


LIBRARY = HEAD + """@prefix : <http://example.org/library#> .
@prefix lib2: <http://example.org/archive#> .
:Book a owl:Class . :Person a owl:Class . :Shelf a owl:Class . :ReadingRoom a owl:Class .
lib2:Book a owl:Class .
:p1 a :Person ; rdfs:label "Ida Holm" .
:p2 a :Person ; rdfs:label "Omar Reyes" .
:topic1 rdfs:label "tide pools" .
:topic2 rdfs:label "lighthouse keepers" .
:s1 a :Shelf ; rdfs:label "Shelf A" .
:room1 a :ReadingRoom ; rdfs:label "East Room" ; :holds :s1 .
:b1 a :Book ; rdfs:label "Nobody Waits" ; :writer :p1, :p2 ; :about :topic1, :s1 ; :tag "sea", "night" ;
    :printed "1999"^^xsd:gYear .
:b2 a :Book ; rdfs:label "Salt Roads" ; :writer :p1 ; :about :topic2 ; :tag "sea" ; :printed "2004"^^xsd:gYear .
:b3 a :Book ; rdfs:label "Low Tide" ; :writer :p2 ; :about :topic1, :topic2 ; :tag "night" ;
    :printed "2011"^^xsd:gYear .
:x1 a lib2:Book ; rdfs:label "Old Ledger" .
"""


def test_a_count_of_a_named_things_own_links_counts_its_values() -> None:
    ans = _answerer(LIBRARY).answer_sql("How many writers does Nobody Waits have?",
                                        "SELECT COUNT(writer) FROM Book WHERE label = 'Nobody Waits'")
    assert ans.state == "answered" and ans.answer.startswith("2"), ans.error
    ans = _answerer(TRAILS).answer_sql("How many rangers keep North Loop?",
                                       "SELECT COUNT(keptBy) FROM Trail WHERE label = 'North Loop'")
    assert ans.state == "answered" and ans.answer.startswith("2"), ans.error


def test_a_negation_word_inside_a_name_is_no_exclusion() -> None:
    ans = _answerer(LIBRARY).answer_sql(
        "Which was printed earlier, Nobody Waits or Low Tide?",
        "SELECT label FROM Book WHERE label IN ('Nobody Waits', 'Low Tide') ORDER BY printed LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["Nobody Waits"], ans.error
    kitchen = KITCHEN + ':r5 a :Recipe ; rdfs:label "No Bake Bars" ; :uses :mint ; :firstServed "1995"^^xsd:gYear .\n'
    ans = AnswerLoop(store_of(kitchen), NoModel()).answer_sql(
        "Which was first served earlier, Summer Salad or No Bake Bars?",
        "SELECT label FROM Recipe WHERE label IN ('Summer Salad', 'No Bake Bars') ORDER BY firstServed LIMIT 1")
    assert ans.state == "answered" and _names(ans) == ["No Bake Bars"], ans.error


def test_which_x_reads_the_table_its_whole_noun_phrase_names() -> None:
    ans = _answerer(LIBRARY).answer_sql("Which reading rooms hold Shelf A?",
                                        "SELECT R.iri FROM ReadingRoom R JOIN Shelf S ON R.holds = S.iri "
                                        "WHERE S.label = 'Shelf A'")
    assert ans.state == "answered" and _names(ans) == ["East Room"], ans.error
    # two vocabularies' tables of one name (`Book`, `Book_2`): the one the plan reads is the one asked
    ans = _answerer(LIBRARY).answer_sql("Which books are there in the archive?", "SELECT iri FROM Book_2")
    assert ans.state == "answered" and _names(ans) == ["Old Ledger"], ans.error


def test_both_values_of_a_column_of_the_first_table() -> None:
    ans = _answerer(LIBRARY).answer_sql("Which books have both the tags sea and night?",
                                        "SELECT label FROM Book WHERE tag = 'sea' AND tag = 'night'")
    assert ans.state == "answered" and _names(ans) == ["Nobody Waits"] and "both_joined" in ans.repairs
    ans = _answerer(TRAILS).answer_sql("Which trails are kept by both Ada Voss and Ben Ruiz?",
                                       "SELECT label FROM Trail WHERE keptBy = 'Ada Voss' AND keptBy = 'Ben Ruiz'")
    assert ans.state == "answered" and _names(ans) == ["North Loop"], ans.error


def test_a_link_to_things_of_several_kinds_is_compared_by_the_linked_things_name() -> None:
    """`about` links books to topics (no class) and to a shelf: the view says it references Shelf, and the name of
    a topic is not a shelf's; the link is compared with the name instead (linked_elsewhere)."""
    ans = _answerer(LIBRARY).answer_sql("Which books are about tide pools?",
                                        "SELECT B.label FROM Book B JOIN Shelf S ON B.about = S.iri "
                                        "WHERE S.label = 'tide pools'")
    assert ans.state == "answered" and _names(ans) == ["Low Tide", "Nobody Waits"], ans.error
    assert "linked_elsewhere" in ans.repairs
    ans = _answerer(LIBRARY).answer_sql(
        "Which books are about both tide pools and lighthouse keepers?",
        "SELECT B.label FROM Book B JOIN Shelf S1 ON B.about = S1.iri JOIN Shelf S2 ON B.about = S2.iri "
        "WHERE S1.label = 'tide pools' AND S2.label = 'lighthouse keepers'")
    assert ans.state == "answered" and _names(ans) == ["Low Tide"], ans.error
    ans = _answerer(TRAILS + ':t4 a :Trail ; rdfs:label "Fen Trail" ; :passes :fen .\n:fen rdfs:label "Reed Fen" .\n'
                    ).answer_sql("Which trails pass Reed Fen?",
                                 "SELECT T.label FROM Trail T JOIN Landmark L ON T.passes = L.iri "
                                 "WHERE L.label = 'Reed Fen'")
    assert ans.state == "answered" and _names(ans) == ["Fen Trail"], ans.error


def test_the_things_with_both_named_things_are_read_by_code_when_the_plan_reads_the_named_things() -> None:
    """"Which X have both A and B" planned as the named things themselves (an INTERSECT of two different things
    finds nothing; the two things listed answer no "which X"): code reads the X linked to A and also to B, by the
    one link between the tables, and states them only when every check passes."""
    ans = _answerer(KITCHEN).answer_sql(
        "Which recipes use both basil and mint?",
        "SELECT H.iri FROM Herb H WHERE H.label = 'basil' INTERSECT SELECT H.iri FROM Herb H WHERE H.label = 'mint'")
    assert ans.state == "answered" and _names(ans) == ["Green Pesto", "Herb Butter"], ans.answer
    ans = _answerer(TRAILS).answer_sql(
        "Which trails pass both Blue Lake and Stone Hut?",
        "SELECT L.label FROM Landmark L WHERE L.label = 'Blue Lake' OR L.label = 'Stone Hut'")
    assert ans.state == "answered" and _names(ans) == ["North Loop"], ans.answer
    ans = _answerer(TRAILS).answer_sql(
        "Which trails are kept by both Ada Voss and Ben Ruiz?",
        "SELECT G.iri FROM Ranger G WHERE G.label = 'Ada Voss' INTERSECT SELECT G.iri FROM Ranger G "
        "WHERE G.label = 'Ben Ruiz'")
    assert ans.state == "answered" and _names(ans) == ["North Loop"], ans.answer


def test_when_no_plan_passes_a_both_question_is_answered_by_the_plan_code_writes() -> None:
    """No plan of the model passed (here one names a column the view lacks): the loop answers "which X ... both A
    and B" with the X linked to each, and says it was repaired so."""
    for ttl, question, wrong, wanted in (
            (TRAILS, "Which trails are kept by both Ada Voss and Ben Ruiz?",
             "SELECT T.label FROM Trail T WHERE T.ranger = 'Ada Voss' AND T.ranger = 'Ben Ruiz'", ["North Loop"]),
            (KITCHEN, "Which recipes use both thyme and mint?",
             "SELECT R.label FROM Recipe R WHERE R.herb = 'thyme' AND R.herb = 'mint'", ["Herb Butter"]),
            # "cooks" names no table, but means the chefs (the sentence model: clearly the closest table);
            # "doctors" means the physicians, not the patients also treated at both
            (CHEFS, "Which cooks trained at both Larch Academy and Quay School?",
             "SELECT C.label FROM Cook C WHERE C.school = 'Larch Academy'", ["Ines Roa", "Mara Lind"]),
            (CLINICS, "Which doctors work at both Harbour Hospital and Fern Clinic?",
             "SELECT D.label FROM Doctor D WHERE D.hospital = 'Fern Clinic'", ["Dr Aune"])):
        loop = _answerer(ttl)
        q, _ = loop._parse(question, question, "en")
        mentions = loop.index.mentions(q)
        runs = [loop._run(q, wrong, mentions)]
        assert runs[0].problem
        best = loop._written(q, runs, mentions)
        assert best is not None and not best.problem and "both_values" in best.fixes
        assert sorted(c.label or c.value for row in best.rows for c in row) == wanted
        ans = loop._answer(q, best, runs)
        assert ans.state == "answered" and _names(ans) == wanted, ans.answer


CHEFS = HEAD + """@prefix : <http://example.org/chefs#> .
:Chef a owl:Class ; rdfs:label "chef" .
:School a owl:Class ; rdfs:label "school" .
:trainedAt a owl:ObjectProperty ; rdfs:label "trained at" .
:larch a :School ; rdfs:label "Larch Academy" .
:quay a :School ; rdfs:label "Quay School" .
:c1 a :Chef ; rdfs:label "Mara Lind" ; :trainedAt :larch, :quay .
:c2 a :Chef ; rdfs:label "Otto Berg" ; :trainedAt :quay .
:c3 a :Chef ; rdfs:label "Ines Roa" ; :trainedAt :larch, :quay .
"""

CLINICS = HEAD + """@prefix : <http://example.org/clinics#> .
:Physician a owl:Class ; rdfs:label "physician" .
:Hospital a owl:Class ; rdfs:label "hospital" .
:Patient a owl:Class ; rdfs:label "patient" .
:worksAt a owl:ObjectProperty ; rdfs:label "works at" .
:treatedAt a owl:ObjectProperty ; rdfs:label "treated at" .
:h1 a :Hospital ; rdfs:label "Harbour Hospital" .
:h2 a :Hospital ; rdfs:label "Fern Clinic" .
:d1 a :Physician ; rdfs:label "Dr Aune" ; :worksAt :h1, :h2 .
:d2 a :Physician ; rdfs:label "Dr Kell" ; :worksAt :h1 .
:p1 a :Patient ; rdfs:label "Lo Vance" ; :treatedAt :h1, :h2 .
"""


def test_words_close_to_no_table_in_meaning_name_none() -> None:
    from ontouse.checks.asked import meant_tables

    loop = _answerer(CHEFS)
    q, _ = loop._parse("Which teams trained at both?", "Which teams trained at both?", "en")
    assert meant_tables(q, loop.schema, loop.index.embedder) == []  # nothing close enough in meaning
