"""Which thing's phrase a noun phrase is inside, read from the phrases around it: a phrase after a preposition that
directly follows another thing's phrase ("cartridges for the P-200 printer", "each shelf of the cabinet"), and a
thing written with "'s" before another ("the kiln's peak temperature": the peak temperature of the kiln). Part of
reading a sentence (text/reading.py `read_sentence`)."""

from __future__ import annotations

from typing import Any

from .grammar import Phrase, clause_follows

# the things are text/reading.py's Thing (which imports this module): typed as Any here


def possessors(phrases: list[Phrase], things: dict[int, Any]) -> None:
    """A thing written with "'s" before another ("the kiln's peak temperature", "the P-200's cartridge") is inside
    that thing's phrase as if after "of": the peak temperature of the kiln, the cartridge of the P-200. A
    preposition before the possessor is the whole phrase's ("serves as the P-200's backup": as the backup)."""
    for i, p in enumerate(phrases[:-1]):
        owner_like = p.words[-1].tag == "POS" or p.words[0].tag == "PRP$" or p.holder
        if i in things and i + 1 in things and p.kind == "NP" and owner_like:
            if p.pp is not None and phrases[i + 1].pp is None:
                phrases[i + 1].pp, things[i + 1].prep, p.pp = p.pp, things[i].prep, None
            things[i].owner, things[i].prep = things[i + 1].id, "of"


def modifiers(phrases: list[Phrase], things: dict[int, Any]) -> None:
    """A noun phrase after a preposition that follows another thing's phrase directly (no verb between) is inside
    that phrase: "cartridges for the P-200 printer", "each shelf of the cabinet"."""
    for i, p in enumerate(phrases):
        if i not in things or p.pp is None or i < 2:
            continue
        j = i - 2  # the phrase before the preposition
        while j >= 0 and phrases[j].kind == "NP" and j not in things:
            j -= 1
        prep = p.pp.words[0].lower
        place = prep in PLACE_PREPOSITIONS
        if j >= 0 and j in things and phrases[j + 1] is p.pp and phrases[j].head.tag != "PRP" and \
                (prep == "of" or not things[j].proper or place and things[j].prep in PLACED) and \
                not _agent_of_passive(phrases, j, p.pp) and \
                not (place and _passive_agent(phrases, j)):
            # (a pronoun takes no modifier: "carries them in a bag"; a name takes only "of", or a place where the
            # place it names is: "stored at Kolbotn Depot in Oslo", "sent to Kolbotn Depot in Oslo"; where the
            # agent of a passive verb was is where it was done: in "found by Ann Lee at the lab" and "found by
            # technicians at the lab", "at the lab" is where it was found)
            owner = things[j]
            if owner.prep == "of" and owner.owner and p.pp.words[0].lower != "of":
                # "a crate of valves in the hall Vestby": in the crate's phrase
                owner = next(t for t in things.values() if t.id == owner.owner)
            things[i].owner = owner.id


def _agent_of_passive(phrases: list[Phrase], j: int, pp: Phrase) -> bool:
    """Whether "by" after the phrase at j names who did what a passive verb before it says: "copied from an older
    register by Bo Park" (Bo Park copied it), not "a crane by Lund Steel" (no passive verb before it), nor a second
    "by" ("written by Ana Ruiz with photographs by Bo Park": the photographs are Bo Park's)."""
    # ("written by Ana Ruiz with photographs by Bo Park": the verb's agent is named already)
    return pp.words[0].lower == "by" and _passive_verb_before(phrases, j - 1, second_by=True)


def _passive_agent(phrases: list[Phrase], j: int) -> bool:
    """Whether the noun phrase at j is the agent of a passive verb ("found on 2 May, by technicians"): after "by",
    with a passive verb before it past noun phrases, prepositions and commas only."""
    pp = phrases[j].pp
    return pp is not None and pp.words[0].lower == "by" and _passive_verb_before(phrases, j - 1, commas=True)


def _passive_verb_before(phrases: list[Phrase], k: int, commas: bool = False, second_by: bool = False) -> bool:
    """Whether a passive verb stands before phrase k past noun phrases and prepositions (and commas, `commas`);
    `second_by`: not past another "by"."""
    while k >= 0 and (phrases[k].kind in ("NP", "PP") or commas and phrases[k].kind == "O" and
                      phrases[k].words[0].text == ","):
        if second_by and phrases[k].kind == "PP" and phrases[k].words[0].lower == "by":
            return False
        k -= 1
    return k >= 0 and phrases[k].kind == "VP" and phrases[k].words[-1].tag == "VBN"


def conjuncts(phrases: list[Phrase], things: dict[int, Any]) -> None:
    """A thing listed after another with "and", "or" or a comma, with no preposition of its own, plays the same part:
    "a guide by Ann Lee and Bo Park" (both after "by", inside the guide's phrase), "is a welder, a fitter and a
    driver" (three things "is" says it is). Names after a name of a place with commas only, no "and" or "or", say
    where it is ("at the Vale Lab, Tromsø, Norway": in Tromsø, in Norway), a phrase inside it.
    """
    placed: set[int] = set()
    for i in sorted(things):
        t = things[i]
        if phrases[i].pp is not None or i < 2 or clause_follows(phrases, i):
            continue  # ("..., and a sack holds 60 kg": the subject of a clause of its own)
        k, joined = i - 1, False
        while k >= 0 and phrases[k].kind == "O" and phrases[k].words[0].lower in (",", "and", "or", "/"):
            joined = joined or phrases[k].words[0].lower in ("and", "or", "/")  # ("a hotel/restaurant building")
            k -= 1
        if k == i - 1 or k < 0 or k not in things or not (joined or phrases[i - 1].words[0].text == ","):
            continue
        first = things[k]
        if _titles_of_one_name(phrases, k, first, t, joined):  # "by engineer and owner Bo Park": one person
            t.prep, t.owner, phrases[i].pp = first.prep, first.owner, phrases[k].pp
            t.titles = [first.head.lower(), *first.titles, *t.titles]
            del things[k]
            continue
        if not joined and first.prep and i + 1 < len(phrases) and phrases[i + 1].kind == "VP":
            continue  # "In the east hall, two cranes lifted ...": the opening phrase ends; a clause's subject
        if first.named != t.named and first.prep:
            continue  # "made by Kessler and the pumps ...": not one list (a name's last word may be a common
            # word: "by Anna Maria Craft and Lars Berg" is one list)
        if not joined and first.named and t.named and (first.prep in PLACE_PREPOSITIONS or k in placed) and \
                not _closed_by_conjunction(phrases, things, i):
            placed.add(i)  # "at the Vale Lab, Tromsø, Norway": where the lab is, not more places
            t.prep, t.owner = "in", first.id
            continue
        t.prep, t.owner, t.conjunct_of = first.prep, first.owner, first.conjunct_of or first.id
        phrases[i].pp = phrases[i].pp or next((p for p in reversed(phrases[:k]) if p.kind == "PP"), None) \
            if first.prep else phrases[i].pp


PLACE_PREPOSITIONS = frozenset({"at", "in", "near"})
PLACED = PLACE_PREPOSITIONS | {"to", "from"}  # a name after these is a place: a place after it says where it is


def _titles_of_one_name(phrases: list[Phrase], k: int, first: Any, t: Any, joined: bool) -> bool:
    """Whether a common noun without a determiner, listed with "and" before a name written with its title ("by
    architect and furniture maker Ola Berg", "signed by engineer and owner Bo Park"), is another title of that
    name, not a thing of its own."""
    return joined and t.named and bool(t.title) and not first.named and not first.plural and \
        bool(first.prep) and phrases[k].words[0].tag not in ("PRP$", "CD")


def _closed_by_conjunction(phrases: list[Phrase], things: dict[int, Any], i: int) -> bool:
    """Whether names listed with commas from phrase i on end with "and" or "or" before the last ("Oslo, Bergen and
    Molde": a list; "Bergen, Norway": a place and where it is, also in "at Bergen, Norway, and sold ...")."""
    j = i + 1
    while j < len(phrases) and (j in things or phrases[j].kind == "O" and phrases[j].words[0].lower in (",", "and",
                                                                                                       "or")):
        if j not in things and phrases[j].words[0].lower in ("and", "or"):
            return j + 1 in things  # (", and named it ...": a clause goes on, the names' list ended)
        j += 1
    return False
