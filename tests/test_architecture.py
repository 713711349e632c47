"""The layering the design promises, checked on the source: who may import whom.

Dependencies point one way: protocol -> engine facade -> a game's engine -> the search core
and that game's rules.  The referee uses the games' rules and record formats, never a search.
The search core knows no game, and the games do not know each other.  No import circles.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "referee", "lab")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every project module ``path`` imports, anywhere in the file (lazy imports count)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # "from pkg import module"
    return {m for m in out if m.split(".")[0] in PACKAGES}


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def test_no_import_circles():
    g = graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g[n]):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(g):
        if n not in state:
            visit(n)


def offenders(prefix: str, allowed) -> list[str]:
    return sorted(f"{a} imports {b}" for a, deps in graph().items() if a.startswith(prefix)
                  for b in deps if b.startswith("engine") and not allowed(a, b))


def test_the_referee_never_imports_a_search():
    rules = ("engine.game", "engine.mnk.board", "engine.mnk.board.rules", "engine.reversi.board.rules", "engine.reversi.board.ggf",
             "engine.reversi.board.bitboard", "engine.version")
    assert offenders("referee", lambda a, b: b in rules or b in ("engine", "engine.mnk", "engine.reversi")) == []


def test_protocol_code_reaches_engines_only_through_the_facade():
    values = ("engine.api", "engine.game", "engine.version", "engine.search.limits", "engine.timecontrol", "engine.mnk.board.rules",
              "engine.reversi.board.rules", "engine.reversi.board.ggf", "engine.reversi.board.bitboard", "engine", "engine.mnk",
              "engine.reversi", "engine.search")
    # The command lines' bench sub-commands run the games' benchmarks (not protocol logic).
    benches = ("engine.mnk.bench", "engine.reversi.bench")
    assert offenders("protocol", lambda a, b: b in values or (a.endswith(".cli") and b in benches)) == []


def test_the_search_core_knows_no_game_and_games_not_each_other():
    g = graph()
    for a, deps in g.items():
        if a.startswith("engine.search") or a in ("engine.game", "engine.options"):
            assert not any(b.startswith(("engine.mnk", "engine.reversi")) for b in deps), (a, deps)
        if a.startswith("engine.mnk"):
            assert not any(b.startswith("engine.reversi") for b in deps), (a, deps)
        if a.startswith("engine.reversi"):
            assert not any(b.startswith("engine.mnk") for b in deps), (a, deps)
        if a.startswith(("engine", "protocol", "referee")):
            assert not any(b.startswith("lab") for b in deps), f"{a} imports the lab"


#: The referee's floors, top to bottom: a package imports only its own floor's modules and
#: those of the floors below (``errors`` is the floor every other may use).
REFEREE_FLOORS = (
    ("referee.cli", "referee.__main__"),
    ("referee.match", "referee.conformance", "referee.report"),
    ("referee.cluster",),
    ("referee.play",),
    ("referee.seats",),
    ("referee.engines", "referee.games"),
    ("referee.errors",),
)


#: The m,n,k engine's folders, top to bottom, read the same way: the threat search builds on the
#: knowledge of lines, and both on the board; plain UCT's playouts need the board alone.
MNK_FLOORS = (
    ("engine.mnk.bench",),
    ("engine.mnk.tree",),
    ("engine.mnk.threats", "engine.mnk.playouts"),
    ("engine.mnk.knowledge",),
    ("engine.mnk.board",),
    ("engine.mnk._threatcore",),
)


def _floor(module: str, floors=REFEREE_FLOORS) -> int | None:
    for i, prefixes in enumerate(floors):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return None


def test_the_referee_imports_only_downwards():
    g = graph()
    unplaced = sorted(m for m in g if m.startswith("referee.") and _floor(m) is None)
    assert unplaced == [], "modules on no floor: " + ", ".join(unplaced)
    upward = sorted(f"{a} imports {b}" for a, deps in g.items() if a.startswith("referee.")
                    for b in deps if b.startswith("referee.") and _floor(b) is not None and _floor(b) < _floor(a))
    assert upward == []


def test_the_mnk_engine_imports_only_downwards():
    g = graph()
    inner = [m for m in g if m.startswith("engine.mnk.")]
    assert len(inner) > 10
    unplaced = sorted(m for m in inner if _floor(m, MNK_FLOORS) is None)
    assert unplaced == [], "modules in no folder: " + ", ".join(unplaced)
    upward = sorted(f"{a} imports {b}" for a in inner for b in g[a]
                    if b.startswith("engine.mnk.") and _floor(b, MNK_FLOORS) < _floor(a, MNK_FLOORS))
    assert upward == []


def test_every_package_says_what_it_is():
    """Each folder's ``__init__`` opens with the one phrase that names its job."""
    silent = []
    for top in ("engine", "protocol", "referee", "lab"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text()))
            if not doc or not doc.split("\n")[0].strip():
                silent.append(str(init.relative_to(ROOT)))
    assert silent == []


def test_dask_is_imported_by_the_cluster_package_only():
    for path in (ROOT / "referee").rglob("*.py"):
        if module_name(path).startswith("referee.cluster"):
            continue
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names.add((node.module or "").split(".")[0])
        assert not names & {"dask", "distributed"}, path


def test_no_referee_module_is_overgrown():
    """Small modules: none over about 400 lines, no function over about 80 (declarations apart)."""
    for path in (ROOT / "referee").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 420, f"{path.name}: {text.count(chr(10))} lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                assert length <= 85 or node.name in ("build_parser", "_parser"), f"{path.name}:{node.name} {length}"


def test_the_tests_are_laid_out_like_the_source():
    """A newcomer finds a module's tests in the folder of its package; only the project-wide
    checks sit at the top, and what the tests share is in one support package."""
    tests = ROOT / "tests"
    top = sorted(p.name for p in tests.glob("test_*.py"))
    assert top == ["test_architecture.py", "test_pure_python.py"]
    folders = {p.parent.name for p in tests.rglob("test_*.py") if p.parent != tests}
    assert folders <= {"engine", "protocol", "referee", "lab"}
    for path in tests.rglob("test_*.py"):
        prefix = path.name.removeprefix("test_").split("_")[0]
        if path.parent.name == "referee":
            assert prefix == "referee", path
        if path.parent.name == "lab":
            assert prefix == "lab", path
    assert not any((tests / p).exists() for p in ("fake_engines", "conftest.py"))
    assert (tests / "support" / "__init__.py").exists()
