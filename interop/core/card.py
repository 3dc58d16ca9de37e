"""Jupyter's card: what a tensor is and what it costs, in HTML that follows the notebook's theme.

One list of facts, drawn as lines: what the tensor is (class, shape, dtype,
backend, device, bytes), for chunked tensors what computing it costs (the
chunks, their shape and bytes, the tasks and graph layers: the numbers Dask's
own card shows), for the torch face its autograd state, a subclass's instance
attributes, then the values (bounded) or the chunk diagram.  Each fact is a
``<span class='interop-NAME'>``; the exact number behind a rounded one is its
``title``.  The HTML is block lines of text, so a renderer that drops the
stylesheet still shows readable lines; the colours are JupyterLab's theme
variables (as xarray's card uses them), so light and dark themes both read.
Drawing a card reads metadata only: it runs no task and calls no hook.
"""

from __future__ import annotations

import html
import math
from typing import Any, NamedTuple

from ..backends import registry
from ..errors import shown_shape
from .repr import _host_values


class Fact(NamedTuple):
    """One fact of a card: its name (the span's class), the text shown, the exact value."""

    name: str
    text: str
    title: str = ""


# The card's look: JupyterLab's theme variables with light fallbacks, dark where a page says
# it is dark without them (VS Code, pydata-sphinx-theme), as xarray's card does.  Dask's
# diagram draws black lines and labels: they take the text colour, so they read on dark too.
_STYLE = """<style>
.interop-card{--interop-fg:var(--jp-content-font-color0,rgba(0,0,0,1));
--interop-dim:var(--jp-content-font-color2,rgba(0,0,0,.6));
--interop-rule:var(--jp-border-color2,#e0e0e0);--interop-accent:var(--jp-brand-color1,#1976d2);
color:var(--interop-fg);font-family:var(--jp-code-font-family,monospace);
font-size:var(--jp-code-font-size,13px);line-height:1.5}
html[theme=dark] .interop-card,html[data-theme=dark] .interop-card,
body[data-theme=dark] .interop-card,body.vscode-dark .interop-card{--interop-fg:rgba(255,255,255,1);
--interop-dim:rgba(255,255,255,.6);--interop-rule:#3a3a3a;--interop-accent:#64b5f6}
.interop-card .interop-class{font-weight:bold}
.interop-card .interop-cost,.interop-card .interop-attrs{color:var(--interop-dim)}
.interop-card .interop-autograd{color:var(--interop-accent)}
.interop-card pre{margin:2px 0 0;padding:2px 0 0;border-top:1px solid var(--interop-rule);
color:var(--interop-fg);background:transparent;font:inherit}
.interop-card svg{stroke:var(--interop-fg) !important;margin-top:2px}
.interop-card svg text{fill:var(--interop-fg)}
</style>"""


def format_bytes(n: float) -> str:
    """``48 B``, ``7.63 MiB``; ``unknown`` for Dask arrays of unknown size."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "unknown"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{int(n)} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _bytes_fact(name: str, n: float, text: str = "{}") -> Fact:
    shown = format_bytes(n)
    if shown == "unknown":
        return Fact(name, text.format("unknown size").replace("unknown size each", "size unknown"))
    exact = "" if n < 1024 else f"{int(n):,} bytes"
    return Fact(name, text.format(shown), exact)


def identity(tensor: Any, name: str | None = None) -> list[Fact]:
    """What the tensor is: class, shape, dtype, backend, device, and the bytes it holds (a lazy
    tensor: the bytes it would take once computed)."""
    raw = tensor._raw
    be = registry.owner(raw)
    size = _bytes_fact("bytes", raw.nbytes, "would take {}" if be.lazy else "{}")
    if be.lazy and size.text.endswith("unknown size"):
        size = Fact("bytes", "size unknown until computed")
    return [Fact("class", name or type(tensor).__name__), Fact("shape", str(shown_shape(raw.shape))),
            Fact("dtype", str(raw.dtype)), Fact("backend", be.name),
            Fact("device", str(be.device_of(raw))), size]


def costs(raw: Any) -> list[Fact]:
    """What computing a chunked array costs, as its library counts it: the chunks (count, shape
    of the largest, its bytes), the chunk type, and the tasks and graph layers (Dask) or the
    tasks and stages of the plan (Cubed).  Empty for eager arrays."""
    if registry.owner(raw).chunking(raw) is None:
        return []
    chunk = tuple(raw.chunksize)
    known = not any(isinstance(c, float) and math.isnan(c) for c in chunk)
    facts = [Fact("nchunks", _plural(int(raw.npartitions), "chunk")),
             Fact("chunk-shape", f"of {shown_shape(chunk)}"),
             _bytes_fact("chunk-bytes", math.prod(chunk) * raw.dtype.itemsize if known
                         else float("nan"), "{} each")]
    meta = getattr(raw, "_meta", None)
    if meta is not None:
        facts.append(Fact("chunk-type", f"{type(meta).__module__.partition('.')[0]}."
                                        f"{type(meta).__name__}"))
    return facts + _graph(raw)


def _graph(raw: Any) -> list[Fact]:
    """Tasks and layers of a Dask graph (no task runs: the counts are the graph's sizes), or
    tasks and stages of a Cubed plan (its own card reads the same plan)."""
    if hasattr(raw, "__dask_graph__"):
        graph = raw.__dask_graph__()
        layers = len(getattr(graph, "layers", ())) or 1
        return [Fact("tasks", _plural(len(graph), "task")),
                Fact("layers", _plural(layers, "graph layer"))]
    plan = getattr(raw, "plan", None)
    if callable(plan):
        finalized = plan()
        return [Fact("tasks", _plural(finalized.num_tasks, "task")),
                Fact("layers", _plural(finalized.num_stages, "stage"))]
    return []


def attributes(tensor: Any) -> list[Fact]:
    """A subclass's public instance attributes (``unit='m'``), as the subclass keeps them."""
    return [Fact(f"attr-{k}", f"{k}={v!r}") for k, v in getattr(tensor, "__dict__", {}).items()
            if not k.startswith("_")]


def lines(tensor: Any, name: str | None = None,
          autograd: list[Fact] | None = None) -> list[tuple[str, list[Fact]]]:
    """The card's lines of facts, each with its class: identity, cost, autograd, attributes
    (empty lines left out)."""
    found = [("interop-head", identity(tensor, name)), ("interop-cost", costs(tensor._raw)),
             ("interop-autograd", autograd or []), ("interop-attrs", attributes(tensor))]
    return [(kind, facts) for kind, facts in found if facts]


def _span(fact: Fact) -> str:
    title = f" title='{html.escape(fact.title)}'" if fact.title else ""
    return f"<span class='interop-{html.escape(fact.name)}'{title}>{html.escape(fact.text)}</span>"


def _joined(facts: list[Fact]) -> list[str]:
    """The separators between facts: none before a chunk's shape (``3 chunks of (1, 4)``)."""
    return [" " if f.name == "chunk-shape" else " · " for f in facts[1:]]


def _line_html(kind: str, facts: list[Fact]) -> str:
    parts = [_span(facts[0])]
    for sep, fact in zip(_joined(facts), facts[1:]):
        parts += [sep, _span(fact)]
    return f"<div class='{kind}'>{''.join(parts)}</div>"


def line_text(facts: list[Fact]) -> str:
    """A line of the card as plain text (what a browser shows of it, and IPython's text)."""
    return facts[0].text + "".join(sep + f.text for sep, f in zip(_joined(facts), facts[1:]))


def html_card(tensor: Any, name: str | None = None, autograd: list[Fact] | None = None) -> str:
    """The ``_repr_html_`` of a tensor: lines of facts, then the values or the chunk diagram.

    Reads the raw array directly (no dispatch, so a logging subclass's hook
    stays quiet while the notebook draws); a chunked tensor shows the diagram
    its library draws from metadata, never its values; a GPU tensor's preview
    copies only the printed corners.  ``name`` and ``autograd`` are the torch
    face's (its class, its ``requires_grad`` and ``grad_fn``).
    """
    raw = tensor._raw
    body = "".join(_line_html(kind, facts) for kind, facts in lines(tensor, name, autograd))
    return (f"<div class='interop-card'>{_STYLE}<div class='interop-tensor'>{body}"
            f"{_body(registry.owner(raw), raw)}</div></div>")


def _body(be: Any, raw: Any) -> str:
    """The values (bounded), or for a chunked array the chunk diagram its library draws, of any
    rank; none where it draws none (0-d, empty, unknown sizes)."""
    if not be.lazy:
        return f"<pre>{html.escape(_host_values(be, raw, ''))}</pre>"
    try:
        return f"<div class='interop-diagram'>{raw.to_svg(size=120)}</div>"
    except NotImplementedError:
        return ""


def cost_text(tensor: Any) -> str:
    """IPython's plain-text view of a chunked tensor adds this line under its repr: what it
    would take and what computing it costs ('' for eager tensors)."""
    found = costs(tensor._raw)
    return line_text([identity(tensor)[-1], *found]) if found else ""
