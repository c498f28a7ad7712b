"""The package layout, read from the source with ast (nothing imported): the shared kernel `ontocore` imports
neither tool, `ontouse` imports from `ontobuild` only the builder formats it reads, `ontobuild` imports nothing
from `ontouse`, the wings of `ontouse` import downwards only (the answerer's prompt files `ontouse.prompts`, the
store wing `ontouse.storage`, the language wing `ontouse.language`, the SQL plan wing `ontouse.sqlplan`, the
answerer on top), each tool holds its own prompt files, and no module imports itself back through others (no
import cycle), except the known circles listed below (none today)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("ontocore", "ontobuild", "ontouse")
# the ontobuild modules ontouse may import: the builder's formats it reads (none is needed today)
ONTOUSE_MAY_READ: frozenset[str] = frozenset()
# known circles between modules (none left: the SQL reader's parts share `ontouse.sqlplan.scope`, and the expression
# compiler states what it needs of the plan compiler as a Protocol); a new circle fails the test below
KNOWN_CIRCLES: list[set[str]] = []
# the wings of ontouse, lowest first: a wing imports from its own package and the wings below it, never above
ONTOUSE_WINGS = ("ontouse.prompts", "ontouse.storage", "ontouse.language", "ontouse.sqlplan", "ontouse")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (SRC / package).rglob("*.py"):
            parts = path.relative_to(SRC).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports anywhere in its file (also inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _top(module: str) -> str:
    return module.partition(".")[0]


def test_the_kernel_imports_neither_tool() -> None:
    wrong = {name: sorted(t for t in targets if _top(t) != "ontocore")
             for name, targets in _graph().items() if _top(name) == "ontocore"}
    assert not {k: v for k, v in wrong.items() if v}


def test_ontouse_reads_only_the_builder_formats() -> None:
    wrong = {name: sorted(t for t in targets if _top(t) == "ontobuild" and t not in ONTOUSE_MAY_READ)
             for name, targets in _graph().items() if _top(name) == "ontouse"}
    assert not {k: v for k, v in wrong.items() if v}


def test_the_builder_imports_nothing_of_the_answerer() -> None:
    wrong = {name: sorted(t for t in targets if _top(t) == "ontouse")
             for name, targets in _graph().items() if _top(name) == "ontobuild"}
    assert not {k: v for k, v in wrong.items() if v}


def _wing(module: str) -> int:
    return next(i for i, wing in enumerate(ONTOUSE_WINGS) if module == wing or module.startswith(wing + "."))


def test_the_wings_of_the_answerer_import_downwards() -> None:
    """`ontouse.prompts` (the prompt files) imports nothing else of ontouse, `ontouse.storage` neither,
    `ontouse.language` those two, `ontouse.sqlplan` those three, and the answerer on top (the modules of `ontouse`
    itself) all of them."""
    wrong = {name: sorted(t for t in targets if _top(t) == "ontouse" and _wing(t) > _wing(name))
             for name, targets in _graph().items() if _top(name) == "ontouse"}
    assert not {k: v for k, v in wrong.items() if v}


# what the answer checks (ontouse.checks) may read: the question and its grammar words, the result's cells, the plan
# and the view; never the loop that runs them (it asks them through the registry), nor the store
CHECKS_MAY_READ = ("ontouse.checks", "ontouse.question", "ontouse.answer", "ontouse.sqlplan", "ontouse.language",
                   "ontocore")


def test_the_checks_read_only_the_question_the_plan_and_the_view() -> None:
    wrong = {name: sorted(t for t in targets if not any(t == p or t.startswith(p + ".") for p in CHECKS_MAY_READ))
             for name, targets in _graph().items() if name == "ontouse.checks" or name.startswith("ontouse.checks.")}
    assert any(wrong) and not {k: v for k, v in wrong.items() if v}


def test_no_import_circles_between_modules() -> None:
    circles = _circles(_graph())
    assert [c for c in circles if c not in KNOWN_CIRCLES] == []


def test_the_circles_found_are_real() -> None:
    """The checker sees a circle where there is one (so that the test above cannot pass by seeing nothing)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert all(c in _circles(_graph()) for c in KNOWN_CIRCLES)


# the wings of ontobuild; the modules of `ontobuild` itself (pipeline, api, cli, dryrun, ...) sit on top of them
BUILDER_WINGS = ("inputs", "tables", "text", "ontology", "outputs", "values")
# what each wing may import of the others (its own modules always)
BUILDER_WING_MAY_IMPORT = {
    "values": set(),
    "inputs": set(),
    "ontology": {"values", "inputs"},
    "outputs": {"ontology", "values"},
    "tables": {"inputs", "ontology", "values", "outputs"},
    "text": {"inputs", "ontology", "values"},
}
BUILDER_WING_EXCEPTIONS: set[tuple[str, str]] = set()  # none left


def _builder_wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "ontobuild" and parts[1] in BUILDER_WINGS else None


def test_the_wings_of_the_builder_import_only_the_wings_they_stand_on() -> None:
    """`inputs` and `values` import no other wing, `tables` and `text` not each other, `ontology` neither of them
    nor the outputs, and no wing imports the pipeline on top (`ontobuild.pipeline`, `api`, `cli`, ...); the
    builder's prompt files (`ontobuild.prompts`) lie below every wing."""
    wrong = {}
    for name, targets in _graph().items():
        wing = _builder_wing(name)
        if wing is None:
            continue
        bad = sorted(t for t in targets if _top(t) == "ontobuild" and t not in ("ontobuild", "ontobuild.prompts")
                     and _builder_wing(t) != wing and _builder_wing(t) not in BUILDER_WING_MAY_IMPORT[wing]
                     and (name, t) not in BUILDER_WING_EXCEPTIONS)
        if bad:
            wrong[name] = bad
    assert not wrong


def test_each_tool_holds_its_own_prompts() -> None:
    """The kernel holds the prompt loader (ontocore.prompts) and no prompt file; each tool's prompts are the `*.md`
    files of its own `prompts` package."""
    assert sorted(p.relative_to(SRC).as_posix() for p in (SRC / "ontocore").rglob("*.md")) == []
    for tool in ("ontobuild", "ontouse"):
        assert list((SRC / tool / "prompts").glob("*.md")), tool


def test_the_tests_mirror_the_packages() -> None:
    """A test file sits in the folder of what it tests: tests/<package>/<wing>/ for a wing's tests, tests/<package>/
    for a package's own modules, tests/bench/ for the benchmarks' code; at the top only what spans the project (the
    layout, the paperwork, the library API of both tools) and the shared fixtures."""
    tests = SRC.parent / "tests"
    wrong = []
    for path in tests.rglob("test_*.py"):
        folder = path.parent.relative_to(tests)
        if folder.parts and folder.parts[0] in ("data", "cassettes"):
            continue
        if folder.parts == () or folder.parts == ("bench",):
            continue
        if not (SRC / folder).is_dir() or not any((SRC / folder).glob("*.py")):
            wrong.append(path.relative_to(tests).as_posix())
    assert not wrong, f"test files in a folder that mirrors no package: {wrong}"
    top = sorted(p.name for p in tests.glob("test_*.py"))
    assert top == ["test_api.py", "test_layout.py", "test_paperwork.py"], top


MAX_MODULE_LINES = 600  # a module holds one idea; a larger idea is a small package
MAX_FUNCTION_LINES = 80  # a longer function has steps that want names
# third-party private names the project cannot do without (each wrapped once; see docs/architecture.md)
FOREIGN_PRIVATE = {("ontobuild.outputs.bigoutput", "rdflib.plugins.serializers.nt", "_nt_row")}


def test_modules_and_functions_stay_small_and_no_private_name_crosses_a_module() -> None:
    """No module over MAX_MODULE_LINES, no function over MAX_FUNCTION_LINES, and no `_private` name imported from
    another module (a shared name is public, or lives where it belongs)."""
    big, long, private = [], [], []
    modules = _modules()
    for name, path in modules.items():
        text = path.read_text("utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            big.append(name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                long.append(f"{name}.{node.name}")
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__") and \
                            (name, node.module, alias.name) not in FOREIGN_PRIVATE:
                        private.append(f"{name}: {alias.name} from {'.' * node.level}{node.module}")
    assert not big and not long and not private, {"modules": big, "functions": long, "private imports": private}
