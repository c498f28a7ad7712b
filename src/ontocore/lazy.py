"""Public names of a package that live in its submodules, imported on first use (`import ontobuild` and
`import ontouse` stay cheap). No public name is also the name of a submodule (the functions `ontobuild.build` and
`ontouse.ask` live in the modules `api`), so the import system's package attributes never hide one."""

from __future__ import annotations

import importlib
import sys
from typing import Any


def lazy_exports(package: str, names: dict[str, str]) -> None:
    """Make each of `names` (public name -> submodule) an attribute of `package`, imported when first read."""
    module = sys.modules[package]

    def __getattr__(name: str) -> Any:
        if name in names:
            value = getattr(importlib.import_module(f".{names[name]}", package), name)
            module.__dict__[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    module.__dict__["__getattr__"] = __getattr__
