"""Text from data made safe for a terminal: labels, values and answers come from ontologies and endpoints
nobody here controls, and an escape sequence inside one (an OSC window title, an OSC 52 clipboard write, a CSI
cursor move) must not reach the user's terminal. Control characters are shown escaped (`\\x1b`), on a TTY and
in pipes alike; newlines and tabs stay. JSON output is already escaped by the JSON encoder."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (which some terminals also obey)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with every control character shown as an escape (`\\x1b`), newlines and tabs kept."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)
