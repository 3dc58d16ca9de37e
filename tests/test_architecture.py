"""The shape the code keeps: backend differences are backend methods, not branches in operations."""

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
    found = [f"{path.name}:{node.lineno}" for path in sorted(OPS.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if _compares_backend_name(node)]
    assert not found, f"branch on be.name (make it a Backend method instead): {found}"
