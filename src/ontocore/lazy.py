"""Public names of a package that live in its submodules, imported on first use (`import ontobuild` and
`import ontouse` stay cheap). A name may also be the name of a submodule (`ontouse.ask`): the
import system sets a package attribute for each submodule it loads, which must not replace the function; the
submodule stays in sys.modules, where `from ontouse.ask import ...` finds it."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def lazy_exports(package: str, names: dict[str, str]) -> None:
    """Make each of `names` (public name -> submodule) an attribute of `package`, imported when first read."""
    module = sys.modules[package]

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in names and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    def __getattr__(name: str) -> Any:
        if name in names:
            value = getattr(importlib.import_module(f".{names[name]}", package), name)
            module.__dict__[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    module.__dict__["__getattr__"] = __getattr__
    module.__class__ = _Package
