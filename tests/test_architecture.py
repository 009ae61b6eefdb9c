"""The package's dependency direction, read from the source with ``ast``.

Every top-level module or folder of ``kueuelint`` sits in one layer (README, "Development").
A module may import its own folder and anything in a lower layer, nothing above it and
nothing beside it; imports inside functions count as much as those at the top.  There are
no import cycles between modules, and no rule module under checks/builtin imports another.

Today's exceptions are listed below with the step of issue 23 that removes them.  A listed
exception that no longer occurs fails the test too, so the lists can only shrink.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kueuelint"

# Lowest first.  The first layers are foundations every layer may use.
LAYERS: list[set[str]] = [
    {"_version"},                      # written by the build from the git tag
    {"kueuelint", "errors", "cachedir", "collector", "cores"},  # no kueuelint imports but the version
    {"findings", "forked"},            # results and the fork helper
    {"accounting"},                    # quantities and quota arithmetic
    {"cel"},                           # CEL engines, the Kubernetes library, the sandbox
    {"load"},                          # files -> documents with positions
    {"config"},                        # the project configuration (input limits come from load)
    {"kueue"},                         # Kueue's semantics: kinds, their KindSpecs, kind groups
    {"identify"},                      # documents -> objects with an identity
    {"index"},                         # objects -> the Inventory
    {"models"},                        # typed models of the Kueue API and compute-config formats
    {"derive"},                        # objects -> the Workloads Kueue would create
    {"run"},                           # the front door: paths + Config -> Run
    {"schema", "admission"},           # validation against schemas; the dry-admission simulator
    {"review"},                        # two queue setups' dry admissions compared; the queue map
    {"checks"},                        # rules, suppressions, the parallel runner, update checks
    {"pipeline"},                      # commands' entry to the checks
    {"report", "export"},              # findings -> text, JSON, SARIF...; rules -> admission policies
    {"fix"},                           # rewriting files to fix findings
    {"cli"},                           # argument handling
    {"__main__"},
]

# (importer, imported) module pairs that break the layering, to be removed by later steps.
UPWARD_ALLOWED: set[tuple[str, str]] = set()

# Import cycles between modules (each a set of the modules in one cycle).
CYCLES_ALLOWED: list[set[str]] = []

# Step 3: rule modules that import another rule module's helpers.
RULE_IMPORTS_ALLOWED: set[tuple[str, str]] = set()

# The simulator's internals, which rules should reach through a shared model instead.
SIMULATOR_INTERNALS = ("kueuelint.admission.build", "kueuelint.admission.workloads")
# Step 2/3: rules that read the simulator's internals today.
INTERNALS_ALLOWED: set[tuple[str, str]] = set()


@lru_cache(maxsize=None)
def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


@lru_cache(maxsize=None)
def imports() -> dict[str, set[str]]:
    """Module -> the kueuelint modules it imports anywhere in its source."""
    known = modules()
    return {name: {target for node in ast.walk(ast.parse(path.read_text(), str(path)))
                   for target in _targets(name, path, node, known) if target != name}
            for name, path in known.items()}


def _targets(name: str, path: Path, node: ast.AST, known: dict) -> list[str]:
    if isinstance(node, ast.Import):
        candidates = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(name, path, node)
        # ``from pkg import mod`` imports the module pkg.mod; ``from mod import func`` the module.
        candidates = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                      for alias in node.names]
    else:
        return []
    return [found for found in (_known_prefix(c, known) for c in candidates) if found]


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _known_prefix(dotted: str, known: dict) -> str | None:
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_of(module: str) -> int:
    for number, names in enumerate(LAYERS):
        if area(module) in names:
            return number
    raise AssertionError(f"{module} belongs to no layer; add {area(module)!r} to LAYERS")


def rule_modules() -> set[str]:
    """Modules named by a built-in rule's ``python:`` entry."""
    named = set()
    for rule_file in (ROOT / "rules").rglob("*.yaml"):
        named.update(re.findall(r"^python:\s*kueuelint\.checks\.builtin\.(\w+):", rule_file.read_text(errors="replace"), re.M))
    return named


# --- the contracts ----------------------------------------------------------------------------

def test_every_module_is_in_a_layer():
    for module in modules():
        layer_of(module)


def test_no_module_imports_upward_or_sideways():
    found = {(importer, imported) for importer, targets in imports().items() for imported in targets
             if area(importer) != area(imported) and layer_of(imported) >= layer_of(importer)}
    assert found - UPWARD_ALLOWED == set(), "imports against the layer order (README, Development)"
    assert UPWARD_ALLOWED - found == set(), "fixed: remove these from UPWARD_ALLOWED"


def test_no_import_cycles():
    cycles = [set(component) for component in strongly_connected(imports()) if len(component) > 1]
    unexpected = [sorted(c) for c in cycles if c not in CYCLES_ALLOWED]
    assert unexpected == [], "import cycles between modules"
    assert [sorted(c) for c in CYCLES_ALLOWED if c not in cycles] == [], "fixed: remove from CYCLES_ALLOWED"


def test_no_rule_module_imports_another():
    named = rule_modules()
    prefix = "kueuelint.checks.builtin."
    found = {(importer.removeprefix(prefix), imported.removeprefix(prefix))
             for importer, targets in imports().items() if importer.removeprefix(prefix) in named
             for imported in targets if imported.startswith(prefix) and imported.removeprefix(prefix) in named
             and imported != importer}
    assert found - RULE_IMPORTS_ALLOWED == set(), "a rule module imports another; share through a helper module"
    assert RULE_IMPORTS_ALLOWED - found == set(), "fixed: remove these from RULE_IMPORTS_ALLOWED"


def test_rules_do_not_reach_into_the_simulator():
    found = {(importer, imported) for importer, targets in imports().items()
             if importer.startswith("kueuelint.checks.") for imported in targets
             if imported in SIMULATOR_INTERNALS}
    assert found - INTERNALS_ALLOWED == set()
    assert INTERNALS_ALLOWED - found == set(), "fixed: remove these from INTERNALS_ALLOWED"


def test_the_contracts_see_real_imports():
    """The parser must find what is plainly there, or every contract above passes vacuously."""
    graph = imports()
    assert "kueuelint.run" in graph["kueuelint.checks.runner"]                  # top of module
    assert "kueuelint.checks.runner" in graph["kueuelint.pipeline"]            # inside a function
    assert "kueuelint.derive.podsets" in graph["kueuelint.derive.kinds_appwrapper"]
    assert {"pod_groups", "queue_labels", "structure"} <= rule_modules()


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (the graph is a few hundred modules deep at most)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def test_cycle_finder_finds_a_known_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(sorted(c) for c in strongly_connected(graph)) == [["a", "b", "c"], ["d"]]
