"""Example questions with their plans, supplied by the user (`ontoask --examples FILE`), retrieved by meaning.

The file is a JSON (or YAML) list of {"question": ..., "sql": ...} pairs written over the ontology's relational
view (the SQL form of a plan). Each example is checked against the view when the answerer opens; an example that
does not read is left out with a warning. For each question the most similar examples (sentence embeddings,
ontocore/embeddings.py) go into the prompt, as the best systems on knowledge-graph question answering do with example
queries."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from ontocore.errors import InputError

from .sqlplan.plan import PlanError
from .sqlplan.schema import Schema
from .sqlplan.reader import read_sql

log = logging.getLogger(__name__)

TOP = 3
MIN_SIMILARITY = 0.35


MAX_EXAMPLES_BYTES = 5_000_000  # an examples file is a few hundred pairs; YAML parsing is slow on more


@dataclass
class Examples:
    pairs: list[tuple[str, str]] = field(default_factory=list)
    _vectors: object = None

    @classmethod
    def load(cls, path: str | Path) -> "Examples":
        path = Path(path)
        try:
            size = path.stat().st_size
        except OSError as e:
            raise InputError(f"{path} cannot be read: {e.strerror}.") from None
        if size > MAX_EXAMPLES_BYTES:
            raise InputError(f"{path} is {size / 1e6:.1f} MB; an examples file may have at most "
                             f"{MAX_EXAMPLES_BYTES // 1_000_000} MB (a few hundred question/SQL pairs are plenty).")
        try:
            text = path.read_text("utf-8")
        except OSError as e:
            raise InputError(f"{path} cannot be read: {e.strerror}.") from None
        except UnicodeDecodeError:
            raise InputError(f"{path} is not UTF-8 text.") from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise InputError(f"{path} is nested too deeply to be a list of examples.") from None
        except json.JSONDecodeError:
            try:
                import yaml

                if text.count("&") > 1000 or text.count("*") > 1000 and "&" in text:
                    raise InputError(f"{path} uses too many YAML anchors and aliases for an examples file.")
                data = yaml.safe_load(text)
            except InputError:
                raise
            except Exception:  # noqa: BLE001 - any YAML error is the user's file
                raise InputError(f"{path} is neither JSON nor YAML: give a list of "
                                 "{\"question\": ..., \"sql\": ...} objects.") from None
        if isinstance(data, dict):
            data = data.get("examples", data.get("questions"))
        if not isinstance(data, list):
            raise InputError(f"{path} must hold a list of {{\"question\": ..., \"sql\": ...}} objects.")
        pairs = []
        for i, item in enumerate(data):
            q = item.get("question") if isinstance(item, dict) else None
            sql = item.get("sql", item.get("query")) if isinstance(item, dict) else None
            if not isinstance(q, str) or not isinstance(sql, str) or not q.strip() or not sql.strip():
                raise InputError(f"{path}: example {i + 1} needs a \"question\" and a \"sql\" text.")
            pairs.append((" ".join(q.split()), sql.strip()))
        if not pairs:
            raise InputError(f"{path} holds no examples.")
        return cls(pairs)

    def check(self, schema: Schema) -> None:
        """Leave out the examples that do not read against the view (with a warning for each)."""
        kept = []
        for q, sql in self.pairs:
            try:
                read_sql(schema, sql)
            except PlanError as e:
                log.warning("example left out (%s): %s", q, e)
                continue
            kept.append((q, sql))
        if not kept:
            raise InputError("None of the examples fits this ontology's tables and columns; see the warnings.")
        self.pairs, self._vectors = kept, None

    def prompt_for(self, question: str) -> str:
        from ontocore.embeddings import Embedder

        emb = Embedder()
        if self._vectors is None:
            self._vectors = emb.embed([q for q, _ in self.pairs])
        qv = emb.embed([question])[0]
        scores = self._vectors @ qv  # type: ignore[operator]
        order = sorted(range(len(self.pairs)), key=lambda i: -float(scores[i]))[:TOP]
        chosen = [self.pairs[i] for i in reversed(order) if float(scores[i]) >= MIN_SIMILARITY]
        return "".join(f"Example question: {q}\n```sql\n{sql}\n```\n" for q, sql in chosen)
