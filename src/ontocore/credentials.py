"""Credentials of a SPARQL endpoint, for both tools (`ontoask --endpoint` queries it, `ontobuild --load-into`
sends an outcome to its Graph Store): from the environment, or user:password in the URL. They are registered
with the redaction, so that no message or log shows them."""

from __future__ import annotations

import base64
import os
import urllib.parse

from .errors import InputError
from .redaction import register_secret


def split_credentials(url: str) -> tuple[str, str | None]:
    """The URL without user:password, and a Basic authorization header value when the URL held them."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--endpoint must be an http(s) URL of a SPARQL query service, not {url!r}.")
    if parts.username is None:
        return url, None
    netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    register_secret(urllib.parse.unquote(parts.password or ""))
    register_secret(parts.password)
    return clean, "Basic " + base64.b64encode(pair.encode()).decode()


def auth_from_env() -> str | None:
    """The authorization header value the environment gives: ONTOASK_ENDPOINT_TOKEN (a bearer token), or
    ONTOASK_ENDPOINT_USER and ONTOASK_ENDPOINT_PASSWORD (Basic); None without them."""
    token = os.environ.get("ONTOASK_ENDPOINT_TOKEN")
    if token:
        return f"Bearer {token}"
    user = os.environ.get("ONTOASK_ENDPOINT_USER")
    if user:
        pair = f"{user}:{os.environ.get('ONTOASK_ENDPOINT_PASSWORD', '')}"
        return "Basic " + base64.b64encode(pair.encode()).decode()
    return None
