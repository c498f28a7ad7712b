"""The text step of a build, sentence by sentence: code reads the sentence's grammar and proposes (text/reading.py:
the things, values and clauses; text/naming.py: the names), the model chooses (text/choosing.py: one small
constrained call per sentence that states something), code checks and writes the facts with their provenance
(the chunk and the sentence), and every clause ends in the coverage: a value or a link written, or the reason it
was not.

Things become individuals: a known individual when the sentence names one (or a class's members when it speaks of
them in the plural), the earlier thing a pronoun or a definite description points back to ("the printer" after
"the P-200"), else a new individual named by its phrase, of the class its head noun names ("the night safe" ->
NightSafe, a Safe). A thing "is" something ("X is a pump") gets that kind as its class.

With the user's vocabulary (`--schema`), a link is one of the vocabulary's relations and a value one of its datatype
properties; its domain and range give the things their classes. A statement the vocabulary has no term for is not
written: it is listed in the coverage as a new term the text would need (`outside_vocabulary`)."""

from __future__ import annotations

import logging
from typing import Any

from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.trace import Trace

from ..ontology.index import EntitiesIndex
from ..inputs.chunks import Chunk
from ..ontology.vocabulary import Vocabulary
from . import grammar
from .choosing import Decision, Link, ValueAsk, choose
from .facts import keep_chunk, write_facts
from .mentions import find_mentions, mention_spans
from .properties import package_words, rename_in_coverage, review_properties
from .proposals import listed_alike, one_role_per_relation, orient, proposals
from .quantities import find_quantities
from .reading import Reading, read_sentence
from .resolving import Resolved, paragraph_history, remember, resolve_things
from .state import TextState, system_prompt, vocabulary_relations

log = logging.getLogger(__name__)


def read_texts(model: ChatModel, idx: EntitiesIndex, chunks: list[Chunk], trace: Trace, progress: Progress,
               vocab: Vocabulary | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every chunk in order, then the review of properties that may be one concept; returns the chunks' coverage
    entries and the merges."""
    state = new_state(chunks, vocab)
    if state.relations:
        from ontocore import embeddings
        state.embedder = embeddings.Embedder() if embeddings.available() else None
        state.class_labels = {vocab.names.get(t.iri, ""): t.label or vocab.names.get(t.iri, "")
                              for t in vocab.of_kind("class")} if vocab is not None else {}
    keep = getattr(model, "keep_prefix", None)
    if keep is not None and chunks:
        keep(state.system)
    entries: list[dict[str, Any]] = []
    progress.begin("text", f"reading {len(chunks)} text chunk(s)", total=len(chunks))
    for i, c in enumerate(chunks, 1):
        before = model.usage.snapshot()
        entry = read_chunk(model, idx, c, trace, state)
        after = model.usage.snapshot()
        entry["llm"] = {"calls": after[0] - before[0], "prompt_tokens": after[1] - before[1],
                        "completion_tokens": after[2] - before[2], "seconds": round(after[3] - before[3], 2)}
        entries.append(entry)
        progress.advance("text", f"text chunk {i} of {len(chunks)}")
    if chunks:
        review_properties(model, idx, trace, state.merges)
        rename_in_coverage(entries, state.merges)
    progress.end("text")
    return entries, state.merges


def read_chunk(model: ChatModel, idx: EntitiesIndex, chunk: Chunk, trace: Trace, state: TextState) -> dict[str, Any]:
    """Facts and links of one chunk into the index; returns its coverage entry."""
    body = " " * chunk.lead + chunk.text[chunk.lead:]  # headings give context, never things or values
    known_names = [m for m in find_mentions(idx, body, limit=40, named=True)
                   if "TextChunk" not in idx.individuals[m].classes]
    spans = mention_spans(idx, body, known_names)
    quantities = find_quantities(body, [(a, b) for a, b, _ in spans])
    history = paragraph_history(state, chunk)
    numbers: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    clauses: list[dict[str, Any]] = []
    outside_before = len(state.outside)
    for n, sentence in enumerate(grammar.parse(body)):
        reading = read_sentence(body, sentence, quantities, spans, n)
        resolved = resolve_things(idx, reading, history, state.packages)
        asks, link_asks, skipped, same = proposals(idx, reading, resolved, state)
        decision = Decision()
        things = choosable(reading, resolved, same)
        if (asks or link_asks) and things:
            decision = choose(model, reading, asks, link_asks, things, state.system, "", trace,
                              f"sentence {chunk.id}.{n + 1}")
            orient(reading, link_asks, decision, state)
            one_role_per_relation(reading, link_asks, decision, state)
            listed_alike(reading, link_asks, decision)
        for vid, (owner, prop) in list(decision.values.items()):
            decision.values[vid] = (same.get(owner, owner), prop)
        written = write_facts(idx, chunk, reading, resolved, asks, link_asks, decision, state)
        numbers += skipped + written["numbers"]
        links += written["links"]
        clauses.append({"sentence": reading.text, "values": len(reading.values),
                        "facts": sum(1 for e in written["numbers"] if e["status"] == "covered"),
                        "links": len(written["links"]),
                        "status": "stated" if any(e["status"] == "covered" for e in written["numbers"])
                        or written["links"] or written["kinds"] else "skipped",
                        "reason": "" if any(e["status"] == "covered" for e in written["numbers"]) or written["links"]
                        or written["kinds"] else _why_nothing(reading, asks, link_asks, decision)})
        remember(idx, reading, resolved, history)
    chunk_ind = keep_chunk(idx, chunk, known_names)
    stated = any(c["status"] == "stated" for c in clauses)
    return {"chunk": chunk.id, "individual": chunk_ind, "status": "covered" if stated else "skipped",
            "reason": "" if stated else "no fact read; its text is kept as a TextChunk",
            "numbers": numbers, "links": links, "clauses": clauses,
            **({"outside_vocabulary": state.outside[outside_before:]} if state.relations else {})}


def plan_chunk(idx: EntitiesIndex, chunk: Chunk, state: TextState) -> list[dict[str, Any]]:
    """What the step would ask the model about one chunk, without asking (`ontobuild --dry-run`): per sentence, the
    values and links it would show and the prompt and reply sizes in characters and tokens (at most)."""
    from .choosing import reply_budget, user_prompt
    body = " " * chunk.lead + chunk.text[chunk.lead:]
    quantities = find_quantities(body)
    out = []
    for n, sentence in enumerate(grammar.parse(body)):
        reading = read_sentence(body, sentence, quantities, [], n)
        resolved = resolve_things(idx, reading, [], state.packages)
        asks, links, _, same = proposals(idx, reading, resolved, state)
        things = choosable(reading, resolved, same)
        if (asks or links) and things:
            out.append({"sentence": reading.text, "values": len(asks), "links": len(links),
                        "prompt_characters": len(user_prompt(reading, asks, links, things)),
                        "completion_tokens_at_most": reply_budget(asks, links, bool(state.relations))})
    return out


def choosable(reading: Reading, resolved: dict[str, Resolved], same: dict[str, str]) -> list[str]:
    """The things the model may name as a value's holder: each thing read and resolved, but a complement that is
    its subject (the subject stands for it) and a measure word ("has a capacity of 40 crates": the capacity is
    what the value measures, never a thing that holds it)."""
    return [t.id for t in reading.things if t.id in resolved and t.id not in same and t.role != "measure"]


def new_state(chunks: list[Chunk], vocab: Vocabulary | None = None) -> TextState:
    """The step's state at its start: the package words of the texts, the vocabulary's relations, the system prompt."""
    state = TextState(packages=package_words(chunks), vocab=vocab)
    state.relations = vocabulary_relations(vocab)
    state.system = system_prompt(state.relations)
    return state


def _why_nothing(reading: Reading, asks: list[ValueAsk], links: list[Link], decision: Decision) -> str:
    if not reading.things and not reading.values:
        return "names no thing and gives no value"
    if not asks and not links:
        return "no value with a thing to hold it, and no two things joined"
    if not decision.answered:
        return "the model gave no usable answer"
    return "the model said it states none of the values or links code read"
