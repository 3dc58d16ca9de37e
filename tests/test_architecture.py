"""The shape the code keeps: layers that import downward only, backend differences as backend
methods (not branches in operations), and modules small enough to read."""

from __future__ import annotations

import ast
import pathlib

import interop

OPS = pathlib.Path(interop.__file__).parent / "ops"


def _compares_backend_name(node: ast.AST) -> bool:
    """``be.name == ...`` / ``... != be.name`` / ``be.name in (...)``."""
    if not isinstance(node, ast.Compare):
        return False
    sides = [node.left, *node.comparators]
    return any(isinstance(s, ast.Attribute) and s.attr == "name" and
               isinstance(s.value, ast.Name) and s.value.id == "be" for s in sides)


def test_operations_do_not_branch_on_the_backend_name() -> None:
    found = [f"{path.relative_to(OPS)}:{node.lineno}" for path in sorted(OPS.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if _compares_backend_name(node)]
    assert not found, f"branch on be.name (make it a Backend method instead): {found}"


PACKAGE = OPS.parent


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.ImportFrom | ast.Import, module: str, is_package: bool,
              modules: dict) -> list[str]:
    """The interop modules an import statement names (``from . import x`` names ``pkg.x``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("interop")]
    if node.level:
        base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
        stem = ".".join(base + ([node.module] if node.module else []))
    else:
        stem = node.module or ""
    return [f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem for a in node.names]


def _imports() -> tuple[dict[str, set[str]], int]:
    """Module-level import graph of interop, and the count of function-level own imports."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    inside_functions = 0
    for module, path in modules.items():
        tree = ast.parse(path.read_text())
        nested = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [n for n in _imported(node, module, path.name == "__init__.py", modules)
                         if n in modules]
                if id(node) in nested:
                    inside_functions += bool(names)
                else:
                    graph[module].update(n for n in names if n != module)
    return graph, inside_functions


def test_module_imports_have_no_cycle() -> None:
    graph, _ = _imports()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            raise AssertionError(f"import cycle: {' -> '.join(path[path.index(module):] + (module,))}")
        if module not in done:
            for dep in sorted(graph[module]):
                visit(dep, (*path, module))
            done.add(module)
    for module in sorted(graph):
        visit(module, ())


def test_only_optional_libraries_are_imported_inside_functions() -> None:
    """interop's own modules import each other at module level, downward; a function-level
    import of one would be a cycle stepped around (torch, dask, cupy, scipy and einops are
    imported where they are used, so that ``import interop`` needs none of them)."""
    _, inside_functions = _imports()
    assert inside_functions == 0, (
        f"{inside_functions} imports of interop modules inside functions: import at module "
        "level, downward (a cycle means a layer is in the wrong place)")


# The layers, from the ground up: a module imports from its own layer and the ones below.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground floor", ("interop.errors", "interop.numpy_compat", "interop.dtypes", "interop.config",
                      "interop.devices", "interop.upstream")),
    ("backends", ("interop.backends",)),
    ("core", ("interop.core",)),
    ("operations", ("interop.ops",)),
    ("Array API namespace", ("interop.array_api",)),
    ("surfaces", ("interop.surfaces", "interop.overrides")),
    ("public names", ("interop",)),
)


def _layer(module: str) -> int:
    """The index in ``LAYERS`` of the folder (or root module) that holds ``module``."""
    best, length = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = i, len(prefix)
    assert best is not None, f"{module} is in no layer: add its folder to LAYERS"
    return best


def test_every_module_imports_from_its_layer_or_below() -> None:
    graph, _ = _imports()
    upward = [f"{module} ({LAYERS[_layer(module)][0]}) imports {dep} ({LAYERS[_layer(dep)][0]})"
              for module, deps in sorted(graph.items()) for dep in sorted(deps)
              if _layer(dep) > _layer(module)]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_folder_graph_has_no_cycle() -> None:
    """Each folder of interop (and each module at its root) is one node."""
    graph, _ = _imports()

    def node(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:2])
    folders: dict[str, set[str]] = {}
    for module, deps in graph.items():
        folders.setdefault(node(module), set()).update(node(d) for d in deps if node(d) != node(module))
    done: set[str] = set()

    def visit(folder: str, path: tuple[str, ...]) -> None:
        if folder in path:
            raise AssertionError(f"folder cycle: {' -> '.join(path[path.index(folder):] + (folder,))}")
        if folder not in done:
            for dep in sorted(folders.get(folder, ())):
                visit(dep, (*path, folder))
            done.add(folder)
    for folder in sorted(folders):
        visit(folder, ())


def test_modules_stay_readable() -> None:
    """No module over 500 lines: past that, a module holds more than one job."""
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 500}
    assert not long, f"split these modules by job: {long}"
