"""Which of the user's vocabulary classes a thing of a sentence can be: the class its head noun or what "is" says it
is names (by label, else by sentence embeddings), the vocabulary's class of people, and whether a name reads as a
person or as no person, against a class that does (text/proposals.py asks these for every link it offers)."""

from __future__ import annotations

import re
from typing import Any

from ..ontology.names import normalize
from .reading import Thing
from .state import TextState


def can_be(t: Thing, classes: list[str], state: TextState, strict: bool = False) -> bool:
    """Whether a thing can be a member of one of the classes: always, unless what it is (its head noun, or what
    "is" says it is) names another class of the vocabulary (a "locomotive" is no Person). `strict`: only when what
    it is is known and is one of them."""
    return kind_can_be(state.kinds.get(t.id, t.kind), classes, state, strict)


def kind_can_be(kind: str, classes: list[str], state: TextState, strict: bool = False) -> bool:
    """`can_be` for a kind word ("Inspector"): whether what it names can be a member of one of the classes."""
    wanted = [c for c in classes if c]
    own = vocabulary_class(kind, state)
    if not wanted or not own or state.vocab is None:
        return not strict
    ancestors = _ancestors(own, state)
    return any(w in (ancestors if ancestors is not None else {own}) for w in wanted)


def unplaced(t: Thing, classes: list[str], state: TextState) -> bool:
    """Whether the vocabulary says nothing of how the class a thing is known to be stands to `classes`: neither it
    nor any of them has a superclass in the vocabulary (a flat vocabulary says of no class what more it is; one
    that puts reports under documents says a document need not be a report)."""
    own = vocabulary_class(state.kinds.get(t.id, t.kind), state)
    if not own or state.vocab is None:
        return False
    return all(_ancestors(c, state) == {c} for c in [own, *[c for c in classes if c]])


def _ancestors(cls: str, state: TextState) -> set[str] | None:
    """The names of a vocabulary class and of every class above it; None for a name the vocabulary lacks."""
    iri = next((i for i, n in state.vocab.names.items() if n == cls), "") if state.vocab is not None else ""
    if not iri:
        return None
    return {state.vocab.names.get(a, "") for a in state.vocab.superclasses_closure(iri)}


CLASS_SIMILARITY = 0.6  # the least sentence-embedding similarity of a kind word and a vocabulary class's label


def vocabulary_class(kind: str, state: TextState) -> str:
    """The vocabulary class a kind word names: its label or name, else the closest label by sentence embeddings
    ("freighter" -> vessel) when close enough; "" for none. Remembered per word."""
    if not kind or not state.class_labels:
        return ""
    if kind in state.kind_classes:
        return state.kind_classes[kind]
    words = " ".join(kind_words(kind))
    found = named_class(kind, state)
    if not found and state.embedder is not None:
        names = list(state.class_labels)
        best = state.embedder.rank(words, [state.class_labels[n] for n in names], top=3)
        found = next((names[i] for i, score in best if score >= CLASS_SIMILARITY and
                      names_people(state.embedder, words) ==
                      names_people(state.embedder, state.class_labels[names[i]])), "")
    state.kind_classes[kind] = found
    return found


def named_class(words: str, state: TextState) -> str:
    """The vocabulary class whose label or name is the words themselves, or their longest ending ("Archive" for
    "archive" and for "a city archive"), else ""."""
    split = words.split()
    for i in range(len(split)):
        tail = normalize(" ".join(split[i:]))
        found = next((name for name, label in state.class_labels.items()
                      if tail and tail in (normalize(label), normalize(name))), "")
        if found:
            return found
    return ""


def person_class(kind: str, state: TextState) -> str:
    """The vocabulary's class of people ("Person", "People") when a kind word names people ("skipper", "nurse"):
    what "X is a <kind>" says X is at least; "" otherwise (no vocabulary, no embedder, or no such class)."""
    if not kind or state.embedder is None or not state.class_labels:
        return ""
    head = (kind_words(kind) or [kind.lower()])[-1]  # ("HarbourPilot": pilot)
    return vocabulary_class("Person", state) if names_people(state.embedder, head) else ""


def class_of_people(cls: str, state: TextState) -> bool:
    """Whether a vocabulary class is its class of people ("Person", "People") or a kind of it."""
    people = vocabulary_class("Person", state)
    if not cls or not people or state.vocab is None:
        return False
    return cls == people or people in (_ancestors(cls, state) or set())


def reads_as_people(cls: str, state: TextState) -> bool:
    """Whether a vocabulary class is of people: its class of people or a kind of it, or, by sentence embeddings,
    a label for people ("staff member", "crew")."""
    if class_of_people(cls, state):
        return True
    label = state.class_labels.get(cls, "")
    return bool(label) and state.embedder is not None and names_people(state.embedder, label)


def kind_words(kind: str) -> list[str]:
    """The words of a kind's name, lower case ("HarbourPilot" -> harbour, pilot)."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", kind)]


PEOPLE = "a person"
PEOPLE_SIMILARITY = 0.3  # a kind word this close to PEOPLE names people (pilot, nurse), else things or groups


def names_people(embedder: Any, words: str) -> bool:
    """Whether a kind word names people. Sentence embeddings put words of one topic close ("pilot" ~ airline,
    "nurse" ~ ward): a word for people is never taken for a class of things or groups, nor the other way round."""
    return float(embedder.similarity(words, PEOPLE)) >= PEOPLE_SIMILARITY


THING = "a company"  # what a person is not: sentence embeddings put companies and things on this side
AGENT_MARGIN = 0.05  # how much closer to one of PEOPLE and THING than to the other a clear reading is
NAME_THING_MARGIN = 0.13  # a name reads as no person only by this much: a person's name may hold a word for a
# place or a thing ("Park", "Hall") that pulls it a little towards THING


def agent_kind(embedder: Any, words: str, thing_margin: float = AGENT_MARGIN) -> str:
    """Whether words read as a person ("person"), as a company or a thing that is no person ("thing"), or as
    neither clearly (""), by sentence embeddings against PEOPLE and THING."""
    lean = float(embedder.similarity(words, PEOPLE)) - float(embedder.similarity(words, THING))
    return "person" if lean >= AGENT_MARGIN else "thing" if lean <= -thing_margin else ""


def _read_name(t: Thing, cls: str, state: TextState) -> tuple[str, str]:
    """(how a name reads, how the class `cls` reads) by `agent_kind`; ("", "") for a thing that is no bare name
    (a description's head noun says its kind, see `can_be`), without an embedder or without a label for `cls`."""
    if state.embedder is None or not cls or cls not in state.class_labels or t.kind or not (t.proper or t.named):
        return "", ""
    return (agent_kind(state.embedder, t.label, NAME_THING_MARGIN),
            agent_kind(state.embedder, state.class_labels[cls]))


def agent_clash(t: Thing, cls: str, state: TextState) -> bool:
    """Whether a name cannot be a value of a relation whose range is the class `cls`: one of the two reads clearly
    as a person and the other clearly as no person ("built by Martin Keller" is no company that builds; "written by
    Nordlys Consulting Group" is no person who writes)."""
    return set(_read_name(t, cls, state)) == {"person", "thing"}


def agent_like(t: Thing, cls: str, state: TextState) -> bool:
    """Whether a name reads clearly as the class `cls` does (both people, or both no people)."""
    name, kind = _read_name(t, cls, state)
    return bool(name) and name == kind
