"""Which thing's phrase a noun phrase is inside, read from the phrases around it: a phrase after a preposition that
directly follows another thing's phrase ("cartridges for the P-200 printer", "each shelf of the cabinet"), and a
thing written with "'s" before another ("the kiln's peak temperature": the peak temperature of the kiln). Part of
reading a sentence (text/reading.py `read_sentence`)."""

from __future__ import annotations

from typing import Any

from .grammar import Phrase

# the things are text/reading.py's Thing (which imports this module): typed as Any here


def possessors(phrases: list[Phrase], things: dict[int, Any]) -> None:
    """A thing written with "'s" before another ("the kiln's peak temperature", "the P-200's cartridge") is inside
    that thing's phrase as if after "of": the peak temperature of the kiln, the cartridge of the P-200. A
    preposition before the possessor is the whole phrase's ("serves as the P-200's backup": as the backup)."""
    for i, p in enumerate(phrases[:-1]):
        if i in things and i + 1 in things and p.kind == "NP" and p.words[-1].tag == "POS":
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
        if j >= 0 and j in things and phrases[j + 1] is p.pp and phrases[j].head.tag != "PRP" and \
                (p.pp.words[0].lower == "of" or not things[j].proper) and not _agent_of_passive(phrases, j, p.pp):
            # (a pronoun takes no modifier: "carries them in a bag"; a name takes only "of": in "found by Ann Lee
            # at the lab", "at the lab" is where it was found)
            owner = things[j]
            if owner.prep == "of" and owner.owner and p.pp.words[0].lower != "of":
                owner = next(t for t in things.values() if t.id == owner.owner)  # "a genus of moths in the family X"
            things[i].owner = owner.id


def _agent_of_passive(phrases: list[Phrase], j: int, pp: Phrase) -> bool:
    """Whether "by" after the phrase at j names who did what a passive verb before it says: "copied from an older
    register by Bo Park" (Bo Park copied it), not "a crane by Lund Steel" (no passive verb before it)."""
    if pp.words[0].lower != "by":
        return False
    k = j - 1
    while k >= 0 and phrases[k].kind in ("NP", "PP"):
        k -= 1
    return k >= 0 and phrases[k].kind == "VP" and phrases[k].words[-1].tag == "VBN"
