"""The generated half of the API reference: the signature and summary of every operation,
read from the callables themselves (their ``__signature__`` comes from the operation's
record), and the entries for public functions whose names a module shares.

``interop.tensor`` and ``interop.config`` are functions, but ``interop/tensor.py`` and
``interop/config.py`` are modules too, and documentation tools that read the source
resolve the dotted name to the module; here the object itself is asked.

Run: python scripts/api_reference.py > operations.md  (the docs build does it itself)
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable

import interop
from interop.ops import TABLE

FAMILY_TITLES = {
    "elementwise": "Elementwise", "reductions": "Reductions, statistics and sorting",
    "shape": "Shape and views", "indexing": "Indexing and scatter", "linalg": "Linear algebra",
    "fft": "FFT", "creation": "Creation", "nn": "Neural network functions",
    "attributes": "Attributes and conversions", "dtypes": "Dtypes", "dask": "Dask",
    "interchange": "Interchange",
}


def plain_signature(name: str, func: Callable) -> str:
    """``sum(input, dim=None, keepdim=False, *, dtype=None, out=None)``: names and defaults,
    as torch documents them (annotations left out)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return f"{name}(...)"
    parts, star_done = [], False
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        text = {p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}"}.get(p.kind, p.name)
        if p.kind is p.VAR_POSITIONAL:
            star_done = True
        if p.default is not p.empty:
            text += f"={p.default!r}"
        parts.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params)
                                            or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    return f"{name}({', '.join(parts)})"


def _summary(doc: str | None) -> str:
    first = (doc or "").strip().split("\n\n")[0].replace("\n", " ")
    return re.sub(r"``([^`]+)``", r"`\1`", first)


def function_entry(name: str) -> str:
    """Markdown for one public function of the package, asked of the object itself."""
    func = getattr(interop, name)
    doc = re.sub(r"``([^`]+)``", r"`\1`", inspect.cleandoc(func.__doc__ or ""))
    return (f"### `interop.{name}`\n\n```python\n{plain_signature(f'interop.{name}', func)}\n"
            f"```\n\n{doc}\n")


def _names(entry) -> str:
    names = []
    if entry.function:
        names += [f"`interop.{n}`" for n in (entry.name, *entry.aliases)]
    if entry.method:
        names.append(f"`Tensor.{entry.method}`")
    if entry.inplace:
        names.append(f"`Tensor.{entry.inplace}`")
    names += [f"`{t}`" for t in entry.torch if not t.startswith("torch.Tensor.")]
    return ", ".join(dict.fromkeys(names))


def operation_entry(entry) -> str:
    """Markdown for one table entry: its signature, what it does, every name it has."""
    if entry.function:
        shown = plain_signature(entry.name, getattr(interop, entry.name))
    elif entry.method and not entry.property:
        shown = plain_signature(f"Tensor.{entry.method}", getattr(interop.Tensor, entry.method))
    else:
        shown = f"Tensor.{entry.method or entry.name}"
    lacks = "".join(f"\n\nNot on {be}: {why}." for be, why in sorted(entry.lacks.items()))
    return (f"`{shown}`  \n{_summary(entry.doc) or 'As torch.'} Names: {_names(entry)}."
            f"{lacks}\n")


def render() -> str:
    """The operations page: every table entry by family, with its signature."""
    lines = ["# Operations", "",
             "Every operation of the table, by family, with the signature its function and "
             "method carry (`inspect.signature`, `help()` and Jupyter show the same), what it "
             "does, and every name it answers to. Generated from the table at build time.", ""]
    by_title: dict[str, list] = {}
    for entry in TABLE.values():
        by_title.setdefault(FAMILY_TITLES.get(entry.family, "Other"), []).append(entry)
    for title in sorted(by_title):
        lines += [f"## {title}", ""]
        lines += [operation_entry(e) for e in sorted(by_title[title], key=lambda e: e.name)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render())
