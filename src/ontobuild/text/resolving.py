"""What each thing of a sentence stands for: known individuals (or a class's members, narrowed by the names its
phrase gives), the earlier thing a pronoun or a definite description points back to ("the printer" after "the
P-200"), or a new individual named by its phrase; and what a sentence spoke of, for the sentences after it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from ..inputs.chunks import Chunk
from ..ontology.index import EntitiesIndex
from ..ontology.names import normalize, safe_name
from .mentions import members, named_by_data, of_category
from .reading import Reading, Thing
from .state import Known, TextState


@dataclass
class Resolved:
    """What a thing of the sentence stands for."""
    individuals: list[str]  # known individuals (or members of a class); [] for a new thing
    new_name: str = ""  # a new individual's name
    new_label: str = ""
    new_class: str = ""
    referent: str = ""  # how the prompt names what a pronoun or description points to
    stated_of: str = ""  # a plural or class: the words that name the group
    made: list[str] = field(default_factory=list)  # the individuals it became when written
    aliases: list[str] = field(default_factory=list)  # other names the text gives it


def _class_named(idx: EntitiesIndex, kind: str) -> str:
    """The index's class a kind word names ("Printer" for "printers"), or ""."""
    return next((c for c in idx.classes if normalize(c) == normalize(kind)), "") if kind else ""


def _category_of_members(idx: EntitiesIndex, t: Thing) -> bool:
    """A plural that names a class's members and, by the same word, a category individual ("Vans are parked ..."
    where a table's category column holds "Vans" and the class Van has members): the members are meant."""
    if not t.plural or t.owner or not t.kind:
        return False
    cls = _class_named(idx, t.kind)
    return bool(cls and members(idx, cls)) and all(
        normalize(idx.individuals[i].label) in (normalize(t.head), normalize(t.label)) and cls not in
        idx.individuals[i].classes for i in t.individuals if i in idx.individuals)


def written_as_name(reading: Reading, t: Thing) -> bool:
    """A plural whose head word is capitalized where no sentence begins ("printed by Harbour Presses", "repaired by
    Bright Signs") is a name, not the members of the class its word names."""
    at = reading.text.rfind(t.head, t.start - reading.start, t.end - reading.start)
    return t.head[:1].isupper() and at > 0 and not reading.text[:at].rstrip().endswith((".", "!", "?", ":"))


_PLURAL_PRONOUNS = ("they", "them", "these", "those", "their", "both", "each")
_PRONOUNS = ("it", "its", "this", "he", "she", "him", "her", "his") + _PLURAL_PRONOUNS


def _pointed_to(pronoun: str, history: list[Known]) -> Known | None:
    """What a pronoun points back to: the latest thing of its number (a plural one: also a group of things), else
    the latest thing of all."""
    want_plural = pronoun in _PLURAL_PRONOUNS
    return next((k for k in reversed(history) if k.plural == want_plural or (want_plural and len(k.individuals) > 1)),
                None) or (history[-1] if history else None)


def _described(idx: EntitiesIndex, kind: str, history: list[Known]) -> Known | None:
    """What "the <kind>" refers back to: the nearest earlier single thing of that kind, else the one named member
    of the class of that name (`_meant_here`)."""
    earlier = next((k for k in reversed(history) if k.kind == kind and k.individuals and len(k.individuals) == 1),
                   None)
    if earlier is None:
        cls = _class_named(idx, kind)
        group = _meant_here(idx, members(idx, cls), history) if cls else []
        if len(group) == 1 and named_by_data(idx, group[0]):
            earlier = Known(idx.individuals[group[0]].label, kind, group, False)
    return earlier


def _meant_here(idx: EntitiesIndex, group: list[str], history: list[Known]) -> list[str]:
    """The members of a class that a description of this paragraph can mean ("the warden", a bare "drawings"): the
    data's records and what this paragraph's text spoke of; a thing the text named in another paragraph is none
    ("Ola Berg was a warden" paragraphs ago is not "the third warden of the club" here, nor are "Drawings of the
    Old Quay" the drawings a report was printed with)."""
    here = {n for k in history for n in k.individuals}
    return [m for m in group if "chunk" not in idx.individuals[m].source or m in here]


def resolve_things(idx: EntitiesIndex, reading: Reading, history: list[Known], packages: Iterable[str] = ()
                   ) -> dict[str, Resolved]:
    """Each thing of the sentence: known individuals, a class's members, what a pronoun or definite description
    points back to, or a new individual. A phrase after "of" that names no thing of its own is part of its owner's
    name ("the cost of repairs"), and no thing of its own."""
    out: dict[str, Resolved] = {}
    folded: set[str] = set()
    for t in reading.things:
        low = t.head.lower()
        if t.individuals and not _category_of_members(idx, t) and not (t.role == "complement" and t.known_before_head):
            # ("X is a Lund Rail engine": X is an engine, not Lund Rail)
            out[t.id] = Resolved(list(dict.fromkeys(t.individuals)))
            continue
        if low in _PRONOUNS:
            earlier = _pointed_to(low, history)
            if earlier is not None and earlier.individuals:
                out[t.id] = Resolved(list(earlier.individuals), referent=earlier.label,
                                     stated_of=earlier.label if len(earlier.individuals) > 1 else "")
                t.refers = earlier.label
            continue  # a pronoun that points to nothing is no thing
        kind = t.kind
        if t.holder and not t.named:  # "the pipe diameter": the pipes spoken of, or no thing (_holder)
            out.update({t.id: held} if (held := _holder(idx, t, history)) is not None else {})
            continue
        if t.plural and kind and not t.owner and not written_as_name(reading, t):
            # "Helmets must be kept ...": the members of a class the tables know
            cls = _class_named(idx, kind)  # (or the records a category column puts in that kind: of_category)
            group = narrowed(idx, reading, t, _meant_here(idx, members(idx, cls), history) if cls
                             else of_category(idx, t.label), not cls)
            if group:
                out[t.id] = Resolved(group, stated_of=t.label, referent=t.label + (" (all)" if t.generic else ""))
                continue
            earlier = next((k for k in reversed(history) if k.kind == kind and len(k.individuals) > 1), None)
            if earlier is not None and not t.named:  # "The A and B lights are ... Lights stay 15 days": those
                out[t.id] = Resolved(list(earlier.individuals), referent=earlier.label, stated_of=t.label)
                t.refers = earlier.label
                continue
        if kind and kind.lower() in packages and not t.proper and not t.named:
            # "ships in boxes of 4, each box weighing 11 kg": a package of the thing the text is about, no thing
            # of its own (its values are the package's: packageWeightKg, unitsPerPackage)
            holder = _package_holder(reading, t, out, history)
            if holder is not None:
                out[t.id] = holder
                continue
        if t.text.lower().startswith(("each ", "every ", "any ")) and not t.proper and not t.named:
            cls = _class_named(idx, kind)
            group = members(idx, cls) if cls else of_category(idx, t.label)
            if group:  # "at every workshop": each member of the class
                out[t.id] = Resolved(group, stated_of=t.label, referent=t.label + " (all)")
            if group or t.role != "subject":
                continue  # "before each trip" of a kind nothing names: a generalization, no individual
        definite = t.text.lower().startswith(("the ", "this ", "that ")) and not t.proper and not t.plural
        if definite and kind:  # "the printer": the nearest earlier thing of that kind
            earlier = _described(idx, kind, history)
            if earlier is not None:
                out[t.id] = Resolved(list(earlier.individuals), referent=earlier.label)
                t.refers = earlier.label
                continue
        if not t.head[:1].isalpha():
            continue
        label = t.kind_label if t.kind_label and t.role in ("complement", "as") else t.label  # what X is: a kind
        if t.plural and written_as_name(reading, t):  # a name keeps its words as written ("Harbour Presses")
            label = re.sub(r"^(?:the|a|an)\s+", "", " ".join(t.text.split()), flags=re.IGNORECASE)
        inner = [x for x in reading.things if x.owner == t.id and (x.named or x.individuals or x.prep == "of")
                 and x.head.lower() not in _PRONOUNS]  # ("their blades" with "their" unresolved: no "blade of their")
        indefinite_kind = t.role in ("complement", "as") and t.text.lower().startswith(("a ", "an ")) and \
            bool(inner) and (inner[0].named or bool(inner[0].individuals))  # "X is a warden of Vestby": a warden
        if not t.named and inner and not t.owner and t.role != "measure" and not indefinite_kind:
            # "cartridges for the P-200 printer", "the cost of repairs" (but "the mean size of the grains" measures
            # the grains: they are a thing; and what "is" says with "a" is a kind, whatever it is of: "X is a
            # warden of Vestby" is a warden, "X was the warden of Vestby" holds the office of warden of Vestby)
            label = f"{label} {inner[0].prep} {inner[0].label}"
            if inner[0].prep == "of" and not (inner[0].named or inner[0].individuals):
                folded.add(inner[0].id)
        out[t.id] = Resolved([], new_name=safe_name(label), new_label=label,
                             new_class=t.title_kind if t.proper else t.kind,
                             stated_of=t.label if t.generic else "", aliases=list(t.aliases))
    for tid in folded:
        out.pop(tid, None)
    return out


def _package_holder(reading: Reading, t: Thing, out: dict[str, Resolved], history: list[Known]) -> Resolved | None:
    """Whose package a package word is ("a box weighs 3 kg"): the sentence's subject before it, else the nearest
    thing before it ("X is packed with a groundsheet, and a bag weighs ...": X's bag, not the groundsheet's), else the
    last thing spoken of."""
    before = [x for x in reversed(reading.things) if x.start < t.start and x.id in out
              and (out[x.id].individuals or out[x.id].new_name)]
    holder = next((out[x.id] for x in sorted(before, key=lambda x: x.role != "subject")), None)
    if holder is None and history and history[-1].individuals:
        holder = Resolved(list(history[-1].individuals), referent=history[-1].label)
    if holder is None:
        return None
    return Resolved(list(holder.individuals), new_name=holder.new_name, new_label=holder.new_label,
                    new_class=holder.new_class, referent=f"the {t.head.lower()} of "
                    f"{holder.referent or holder.new_label or ', '.join(holder.individuals)}")


def _holder(idx: EntitiesIndex, t: Thing, history: list[Known]) -> Resolved | None:
    """What a common noun before a measure noun stands for ("the pipe diameter"): the pipes spoken of before, else
    the tables' pipes; None when it points back to nothing (then it is only a word of the measure's name: "the
    transit time")."""
    earlier = next((k for k in reversed(history) if k.kind == t.kind and k.individuals), None)
    if earlier is not None:
        t.refers = earlier.label
        return Resolved(list(earlier.individuals), stated_of=t.label, referent=earlier.label)
    cls = _class_named(idx, t.kind)
    group = _meant_here(idx, members(idx, cls), history) if cls else []
    return Resolved(group, stated_of=t.label, referent=f"{t.label} (all)") if group else None


def narrowed(idx: EntitiesIndex, reading: Reading, t: Thing, group: list[str], whole_label: bool = False
             ) -> list[str]:
    """A class's members narrowed by the names the phrase gives them: a name inside it ("roasters of the Hestia
    line", "the pumps at North Yard") or a capitalized word before the head ("the KV pumps"): the members that hold
    that name as a value or are linked to a thing of that name. A name whose head is a common noun narrows by its
    name words when the whole does not ("kilns of the Vega series": series Vega). The whole group when nothing
    narrows it; none when a common word before the head says a kind of its own that no member's name has
    ("reserve samples", "worn hoses": not every sample, not every hose); `whole_label`: the group is what the
    whole label names (a category "Cargo bike"), its common words narrow nothing."""
    labels = [normalize(idx.individuals[m].label or m) for m in group]
    if not whole_label and any(w[:1].islower() and not any(normalize(w) in label for label in labels)
                               for w in t.label.split()[:-1]):
        return []
    words: list[str] = []
    for x in reading.things:
        if x.owner == t.id and (x.named or x.individuals):
            words.append(x.label)
            if not x.proper and x.label.endswith(x.head) and x.label != x.head:  # "Vega series" -> "Vega"
                words.append(x.label[:-len(x.head)].strip())
    words += [w for w in re.findall(r"\b[A-Z][\w-]*", t.text) if w.lower() not in ("the", "all", "our", "these",
                                                                                   "those", "each", "every")
              and normalize(w) != normalize(t.head)]
    for word in words:
        key = normalize(word)
        if not key:
            continue
        kept = [m for m in group if any(
            (f.literal is not None and key in normalize(str(f.literal))) or
            (f.object is not None and f.object in idx.individuals and
             key in normalize(idx.individuals[f.object].label or f.object)) for f in idx.individuals[m].facts)]
        group = kept or group
    return group


def paragraph_history(state: TextState, chunk: Chunk) -> list[Known]:
    """What the sentences before this chunk's spoke of, for its pronouns and descriptions: its paragraph's earlier
    pieces (a long paragraph cut in chunks), nothing of another paragraph ("The press was serviced by ..." opening
    a paragraph is no earlier paragraph's press)."""
    history = state.history.setdefault(chunk.file, [])
    if not chunk.continues:
        history.clear()
    return history


def remember(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], history: list[Known]) -> None:
    """What the sentence spoke of, for later pronouns and descriptions: its subject last (the likeliest referent)."""
    order = sorted(reading.things, key=lambda t: (t.role == "subject", t.start))
    for t in order:
        r = resolved.get(t.id)
        if r is None or t.condition:
            continue
        names = r.individuals or r.made
        if not names:
            continue
        kinds = {c for n in names for c in idx.individuals[n].classes} if names else set()
        kind = t.kind or next(iter(kinds), "")
        history.append(Known(t.label if not t.refers else t.refers, kind, names, t.plural or len(names) > 1))
    group = listed_subject(reading)
    if group:  # "A and B stand in ...": a later "they" means the two, not an earlier group
        names = [n for t in group if t.id in resolved for n in (resolved[t.id].individuals or resolved[t.id].made)]
        if len(set(names)) > 1:
            history.append(Known(" and ".join(t.label for t in group), "", list(dict.fromkeys(names)), True))
    del history[:-12]


def listed_subject(reading: Reading) -> list[Thing]:
    """The things a sentence lists as its subject ("Kiln Vesta and Kiln Brann stand in ...", "A, B and C are ..."):
    names joined by commas and a last "and", the last of them the subject; [] when the subject is no such list."""
    ordered = sorted(reading.things, key=lambda t: t.start)
    for i, t in enumerate(ordered):
        if t.role != "subject" or i == 0:
            continue
        run = [t]
        for prev in reversed(ordered[:i]):
            between = reading.text[prev.end - reading.start:run[0].start - reading.start]
            if not re.fullmatch(r"\s*(?:,|,?\s+and)\s+", between) or not (prev.proper or prev.individuals):
                break
            if between.strip() == "," and run[0] is t:
                break  # "A, B verb": an apposition or a list without "and", not read as one
            run.insert(0, prev)
        return run if len(run) > 1 else []
    return []
