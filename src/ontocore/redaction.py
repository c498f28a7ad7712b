"""Secrets never reach a message or a file: API keys, bearer tokens, passwords in URLs.

`redact` replaces the values of the secret environment variables both tools read, the secrets a caller
passes (e.g. an --api-key given on the command line), and anything shaped like a key or a credential."""

from __future__ import annotations

import os
import re
from typing import Iterable

SECRET_ENV = ("OPENAI_API_KEY", "ONTOASK_ENDPOINT_TOKEN", "ONTOASK_ENDPOINT_PASSWORD")
MASK = "[redacted]"
MIN_SECRET = 3  # a shorter value would mask ordinary words; every known secret of 3+ characters is masked
_KNOWN: set[str] = set()  # secrets met at run time: --api-key, passwords in endpoint URLs


def register_secret(value: str | None) -> None:
    """Remember a secret the tool was given (wherever it came from) so that every later message masks it."""
    if value and len(value) >= MIN_SECRET:
        _KNOWN.add(value)
_SHAPES = [
    re.compile(r"\bsk-[A-Za-z0-9_*\-]{6,}"),  # OpenAI-style keys (also partially masked ones)
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{6,}"),
    re.compile(r"(?i)(\b(?:api[_-]?key|access[_-]?token|token|password|passwd|secret)\b[\"']?\s*[:=]\s*[\"']?)"
               r"[^\s\"',;&}]{4,}"),
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),  # user:password@ in URLs
]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every secret replaced by [redacted]."""
    values = [v for v in (*secrets, *_KNOWN, *(os.environ.get(n) for n in SECRET_ENV)) if v and len(v) >= MIN_SECRET]
    for value in sorted(set(values), key=len, reverse=True):
        text = text.replace(value, MASK)
    for i, shape in enumerate(_SHAPES):
        if i == 2:
            text = shape.sub(lambda m: m.group(1) + MASK, text)
        elif i == 1:
            text = shape.sub(lambda m: f"{m.group(1)} {MASK}", text)
        else:
            text = shape.sub(MASK, text)
    return text


class RedactingFilter:
    """A logging filter (and formatter wrapper) that masks secrets in every record, tracebacks included."""

    def __init__(self, formatter: "object") -> None:
        self._formatter = formatter

    def format(self, record: "object") -> str:
        return redact(self._formatter.format(record))  # type: ignore[attr-defined]
