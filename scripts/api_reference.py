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
    first = " ".join((doc or "").strip().split("\n\n")[0].split())
    return _plain_brackets(re.sub(r"``([^`]+)``", r"`\1`", first))


def _plain_brackets(text: str) -> str:
    """Square brackets outside code spans escaped: ``x[j]`` in prose is an index, not a link
    reference (mkdocs' cross-references would look for a page section called ``j``)."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = parts[i].replace("[", "\\[").replace("]", "\\]")
    return "`".join(parts)


def class_entry(name: str, members: tuple[str, ...]) -> str:
    """Markdown for a public class that exists only at run time (``interop.TorchTensor`` is
    made when first asked for, so tools that read the source cannot find it)."""
    cls = getattr(interop, name)
    doc = re.sub(r"``([^`]+)``", r"`\1`", inspect.cleandoc(cls.__doc__ or ""))
    lines = [f"### `interop.{name}`", "", doc, ""]
    for member in members:
        attr = inspect.getattr_static(cls, member)
        text = re.sub(r"``([^`]+)``", r"`\1`", inspect.cleandoc(getattr(attr, "__doc__", "") or ""))
        shown = f"{name}.{member}" if isinstance(attr, property) else \
            plain_signature(f"{name}.{member}", getattr(cls, member))
        lines += [f"- `{shown}`: {text}"]
    return "\n".join(lines) + "\n"


def function_entry(name: str) -> str:
    """Markdown for one public function of the package, asked of the object itself."""
    if name == "TorchTensor":
        return class_entry(name, ("as_interop", "backend"))
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


def _kind(obj: object) -> str:
    import types

    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "warning" if issubclass(obj, Warning) else \
            "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "value"


def names_table() -> str:
    """Every name of ``interop.__all__``: what it is and where the reference describes it.
    Operations point to their family on the operations page; the rest carry the first line
    of their docstring (dtypes: the NumPy dtype they are)."""
    families = {}
    for entry in TABLE.values():
        if entry.function:
            for name in (entry.name, *entry.aliases):
                families.setdefault(name, FAMILY_TITLES.get(entry.family, "Other"))
    lines = ["| name | what it is |", "|---|---|"]
    for name in sorted(interop.__all__, key=str.lower):
        obj = getattr(interop, name)
        if name in families:
            what = f"operation ([Operations](operations.md), {families[name]})"
        elif isinstance(obj, interop.DType if hasattr(interop, "DType") else ()) or \
                type(obj).__name__.endswith("DType"):
            what = f"dtype: NumPy's `{obj.name if hasattr(obj, 'name') else obj}`"
        elif isinstance(obj, tuple):
            what = f"value: `{obj!r}`"
        else:
            doc = _summary(getattr(obj, "__doc__", None)) if not isinstance(obj, (int, str)) else ""
            what = f"{_kind(obj)}: {doc}".rstrip(": ").replace("|", "\\|")
        lines.append(f"| `interop.{name}` | {what} |")
    return "\n".join(lines) + "\n"


def array_api_names() -> str:
    """Every name of ``interop.array_api`` (and its ``linalg`` and ``fft``): the standard's,
    with their signatures, then the names the namespace offers beyond the standard."""
    import interop.array_api as xp

    def rows(module, prefix: str, names) -> list[str]:
        out = []
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type) and \
                    not type(obj).__name__.endswith("DType"):
                shown = f"`{plain_signature(prefix + name, obj)}`"
            elif hasattr(obj, "__all__"):
                shown = f"`{prefix}{name}`: the `{name}` extension (below)"
            else:
                shown = f"`{prefix}{name}` = `{obj!r}`"
            out.append(f"| `{name}` | {shown} |")
        return out

    lines = ["| name | signature or value |", "|---|---|"]
    lines += rows(xp, "xp.", [n for n in xp.__all__ if not n.startswith("__")])
    for ext in ("linalg", "fft"):
        module = getattr(xp, ext)
        lines += ["", f"### `xp.{ext}`", "", "| name | signature |", "|---|---|"]
        lines += rows(module, f"xp.{ext}.", module.__all__)
    extra = sorted(n for n in dir(xp) if not n.startswith("_") and n not in xp.__all__
                   and n.islower() and n not in ("annotations", "attach", "attach_numpys",
                                                 "bound_to", "generate", "generate_all",
                                                 "install", "math", "namespace", "sys"))
    lines += ["", "### Beyond the standard", "",
              ", ".join(f"`xp.{n}`" for n in extra) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render())
