"""Text as the text step reads it: chunks of at most a few hundred characters, cut at paragraphs and sentence ends,
Markdown by heading (each chunk keeps the path of the headings above it), with where each chunk is in its file."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Chunk:
    id: str  # "file#N"
    file: str
    text: str
    lead: int = 0  # characters at the start that are the path of headings above it (context, not content)
    section: str = ""  # the path of the headings above it ("Returns > Refunds"), as the lead says it
    page: int | None = None  # the page (PDF) or slide (PPTX) it is on; None for formats without pages
    page_unit: str = "page"  # what `page` counts: "page" or "slide"
    continues: bool = False  # it goes on with the paragraph of the chunk before it (a long paragraph cut in pieces)

    def place(self) -> dict[str, str]:
        """Where the chunk is in its file, for a fact's source: {"page": "3", "section": "Returns > Refunds"}
        (only what is known; "slide" instead of "page" for a slide)."""
        out: dict[str, str] = {}
        if self.page is not None:
            out[self.page_unit] = str(self.page)
        if self.section:
            out["section"] = self.section
        return out


def paragraph_pieces(text: str, max_chars: int = 900) -> list[tuple[str, bool]]:
    """Paragraphs (blank-line separated), long ones cut at sentence ends to at most `max_chars`, each piece with
    whether it goes on with the paragraph of the piece before it."""
    out: list[tuple[str, bool]] = []
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        first = True
        while len(para) > max_chars:
            cut = para.rfind(". ", 0, max_chars)
            cut = cut + 1 if cut > max_chars // 3 else max_chars
            out.append((para[:cut].strip(), not first))
            para, first = para[cut:].strip(), False
        if para:
            out.append((para, not first))
    return out


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_parts(text: str, max_chars: int = 900) -> list[tuple[str, str, bool]]:
    """(path of the headings above it, text, whether it goes on with the paragraph before) of each chunk of a
    Markdown text."""
    out: list[tuple[str, str, bool]] = []
    path: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            head = " > ".join(path)
            out.extend((head, piece, goes_on) for piece, goes_on in paragraph_pieces("\n".join(block), max_chars))
            block.clear()

    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            path[:] = path[:level - 1] + [m.group(2).strip()]
        else:
            block.append(line)
    flush()
    return out
