"""The Python API in a few lines: open an ontology, look at its classes, ask questions, run a SPARQL query.

    python examples/api_example.py outcomes/example                        # an ontobuild outcome folder
    python examples/api_example.py my.ttl "How many orders are there?"     # any RDF file, your own questions

Uses the model configured as for the commands (OPENAI_API_KEY / OPENAI_BASE_URL, else the embedded model)."""

from __future__ import annotations

import sys

import ontouse
from ontouse.provenance import describe


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    ontology, questions = argv[0], argv[1:]
    with ontouse.Answerer(ontology) as answerer:
        schema = answerer.describe_schema()
        print("classes:", ", ".join(f"{c['name']} ({c['instances']})" for c in schema["classes"]))
        first = schema["classes"][0]
        if not questions:  # a question every ontology can answer
            questions = [f"How many {first.get('label') or first['name']} are there?"]
        for question in questions:
            answer = answerer.ask(question)  # the answer record (ontouse.Answer)
            print(f"\nQ: {question}\nA: {answer.answer}")
            if answer.sparql:
                print("SPARQL:\n" + answer.sparql[-1])
            for (s, p, o), source in zip(answer.support, answer.sources or [{}] * len(answer.support)):
                print(f"  {s} {p} {o}" + (f"   (from {describe(source)})" if source else ""))
        # no model: a read-only query, checked and sandboxed like every query of the answerer
        result = answerer.sparql(f"SELECT (COUNT(?x) AS ?n) WHERE {{ ?x a <{first['iri']}> }}")
        print(f"\nSPARQL count of {first['name']}: {result.rows[0][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
