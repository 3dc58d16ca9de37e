"""interop's hints hold for its users: a short user program type-checks against the package.

The package ships ``py.typed``, and ``Tensor``'s members that the operation table installs at
import are declared in ``interop/core/installed_members.pyi``, so a user's checker knows that
``t + 1`` is a ``Tensor`` and ``t.as_torch()`` a ``torch.Tensor``.  The program is checked as
a user's checker sees an installed package (its errors inside interop are not the user's:
``--follow-imports=silent``); a wrong program must fail, so the check can fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("mypy")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent

USER_PROGRAM = """
    from typing_extensions import assert_type

    import numpy as np
    import torch

    import interop

    t = interop.tensor(np.arange(3.0))
    assert_type(t, interop.Tensor)
    assert_type(t + 1, interop.Tensor)
    assert_type(1.5 * t, interop.Tensor)
    assert_type(t[0] - t @ t, interop.Tensor)
    assert_type(t > 0, interop.Tensor)
    assert_type(t.as_torch(), torch.Tensor)
    assert_type(interop.as_tensor([1, 2]), interop.Tensor)
    shape: tuple[int | None, ...] = t.shape
    total = t.sum(dim=0)  # a method the table installs
"""

WRONG_PROGRAM = """
    import numpy as np

    import interop

    n: int = interop.tensor(np.arange(3.0)) + 1
"""


def _mypy(program: str, tmp_path: Path) -> subprocess.CompletedProcess:
    source = tmp_path / "user_program.py"
    source.write_text(textwrap.dedent(program), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "none.toml"),
         "--follow-imports=silent", "--cache-dir", str(tmp_path / ".mypy_cache"), str(source)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_a_user_program_type_checks_against_the_package(tmp_path):
    (tmp_path / "none.toml").write_text("", encoding="utf-8")
    assert (ROOT / "interop" / "py.typed").is_file()
    done = _mypy(USER_PROGRAM, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    wrong = _mypy(WRONG_PROGRAM, tmp_path)
    assert wrong.returncode == 1 and 'expression has type "Tensor", variable has type "int"' \
        in wrong.stdout, wrong.stdout + wrong.stderr


def test_the_wheel_ships_the_typing_files(tmp_path):
    """py.typed and the stubs are package data, so an installed interop carries them."""
    source = tmp_path / "source"  # a copy: the build writes its own files beside the sources
    shutil.copytree(ROOT / "interop", source / "interop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(source)], check=True, timeout=600,
                   capture_output=True)
    (wheel,) = tmp_path.glob("interop_tensor-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "interop/py.typed" in names and "interop/core/installed_members.pyi" in names


def test_the_stub_declares_every_operator_the_table_installs():
    """installed_members.pyi is written by hand beside the operator table: every dunder the
    table installs is declared there, to give a Tensor, so the stub cannot fall behind."""
    import ast

    from interop.ops import operators
    tree = ast.parse((ROOT / "interop" / "core" / "installed_members.pyi").read_text())
    declared = {node.name: ast.unparse(node.returns) for cls in tree.body
                if isinstance(cls, ast.ClassDef) for node in cls.body
                if isinstance(node, ast.FunctionDef)}
    installed = {d.name for d in operators.binary_dunders()} | \
        {name for name, _ in operators.inplace_dunders()} | set(operators.UNARY_OPERATORS)
    assert installed <= set(declared), sorted(installed - set(declared))
    assert all(declared[name] == "Tensor" for name in installed)
