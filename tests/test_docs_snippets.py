"""Every Python snippet of README.md and docs/ runs, and shows what its comments say.

The snippets of one page run in order in one namespace (later ones build on earlier
ones), statement by statement. An expression whose comment states a value is checked:

- ``expr  # True: ...``, ``# ['mul', 'sum']``, ``# 3``: the literal before any colon
  equals the value;
- ``type(expr)  # Meters``: the class's name;
- ``expr  # tensor([...], ...)`` (continued on comment-only lines): the repr, spaces
  aside.

Other comments are prose. Statements that need a GPU (``.cuda()``, ``device="cuda"``)
are skipped where none is present, and so are the statements that use a name such a
statement made; ``>>>`` examples in ``text`` blocks run as doctests.
"""

from __future__ import annotations

import ast
import doctest
import io
import re
import tokenize
import warnings
from pathlib import Path

import pytest

from tests.conftest import HAS_GPU

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, str, int]]:
    """(language, code, first line) of each fenced block of a page."""
    text = page.read_text(encoding="utf-8")
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 2)
            for m in FENCE.finditer(text)]


def _comments(code: str) -> dict[int, str]:
    """line number -> its comment text (without the ``#``)."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string[1:].strip()
    return found


def _stated(stmt: ast.stmt, lines: list[str], comments: dict[int, str]) -> str:
    """The comment on the statement's first line and the comment-only lines after it."""
    said = comments.get(stmt.lineno, "")
    n = stmt.end_lineno + 1
    while n <= len(lines) and lines[n - 1].strip().startswith("#") and said:
        said += " " + comments.get(n, "")
        n += 1
    return said


def _check(value, said: str, stmt: ast.Expr, where: str) -> None:
    if not said:
        return
    call = stmt.value
    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "type":
        assert value.__name__ == re.split(r"[\s:]", said)[0], f"{where}: {value.__name__}"
        return
    if re.match(r"\w*\(", said) and said.split("(")[0] in ("tensor", type(value).__name__):
        assert " ".join(repr(value).split()) == " ".join(said.split()), \
            f"{where}: {repr(value)} is not what the comment shows"
        return
    head = said.split(":")[0] if not said.startswith(("[", "(", "{", "'", '"')) else said
    try:
        expected = ast.literal_eval(head)
    except (ValueError, SyntaxError):
        return  # prose
    assert value == expected, f"{where}: {value!r} != {expected!r}"


def _needs_gpu(source: str) -> bool:
    return ".cuda()" in source or "device=\"cuda\"" in source or "device='cuda'" in source


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """The names a statement reads and the names it binds."""
    read, bound = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
    return read, bound


def run_page(page: Path) -> int:
    """Run a page's snippets; returns how many statements ran."""
    namespace: dict = {"__name__": f"snippets of {page.name}"}
    ran = 0
    on_gpu: set[str] = set()  # names bound by statements skipped for want of a GPU
    for language, code, first_line in blocks(page):
        if language in ("text", "pycon") and code.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(code, namespace, page.name, str(page),
                                                       first_line)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
            runner.run(test, clear_globs=False)
            assert not runner.failures, f"{page.name}:{first_line}: a >>> example differs"
            ran += len(test.examples)
            continue
        if language != "python":
            continue
        tree, lines, comments = ast.parse(code), code.splitlines(), _comments(code)
        for stmt in tree.body:
            source = ast.get_source_segment(code, stmt)
            where = f"{page.name}:{first_line + stmt.lineno - 1}"
            read, bound = _names(stmt)
            if not HAS_GPU and (_needs_gpu(source) or read & on_gpu):
                on_gpu |= bound
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if isinstance(stmt, ast.Expr):
                    value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
                    _check(value, _stated(stmt, lines, comments), stmt, where)
                else:
                    exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
            ran += 1
    return ran


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_snippets_run_and_show_what_they_say(page):
    pytest.importorskip("torch")
    pytest.importorskip("dask")
    import interop
    interop.set_default_backend("numpy")
    try:
        ran = run_page(page)
    finally:
        interop.set_default_backend("numpy")
    if not any(lang in ("python", "text") for lang, _, _ in blocks(page)):
        pytest.skip("no Python snippet on this page")
    assert ran or not any(lang == "python" for lang, _, _ in blocks(page))


def test_value_comments_are_checked():
    """The checker itself: a wrong stated value fails, prose does not."""
    tree = ast.parse("1 + 1")
    _check(2, "2: two", tree.body[0], "here")
    _check(2, "a number", tree.body[0], "here")
    with pytest.raises(AssertionError):
        _check(3, "2", tree.body[0], "here")
