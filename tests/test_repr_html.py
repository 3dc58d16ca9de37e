"""Jupyter's HTML card: a header line with each fact once, then the values (or Dask's chunk
diagram); "would take N bytes" for lazy tensors; a subclass's instance attributes shown."""

from __future__ import annotations

import html as html_lib
import importlib.util
import math
import re
from typing import Any

import numpy as np
import pytest

import interop
from interop.core.card import format_bytes
from tests.conftest import home_device
from tests.test_repr import TaskCounter


class Meters(interop.Tensor):
    pass


def _facts(card: str) -> dict[str, str]:
    """The header's facts by name (each appears at most once: duplicates fail here)."""
    found = re.findall(r"<span class='interop-([\w-]+)'(?: title='[^']*')?>([^<]*)</span>", card)
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), f"a fact repeats: {names}"
    return {name: html_lib.unescape(text) for name, text in found}


def _visible_lines(card: str) -> list[str]:
    """The text a browser shows, one entry per line (block elements and <pre> newlines)."""
    text = re.sub(r"<svg.*?</svg>|<style>.*?</style>", "", card, flags=re.S)
    text = re.sub(r"</?(div|pre)[^>]*>", "\n", text)
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", text))
    return [line for line in text.splitlines() if line.strip()]


def _tensor(backend: str, values: np.ndarray, **kwargs):
    if backend == "cupy":
        return interop.tensor(values, device="cuda")
    return interop.tensor(values, backend=backend, **kwargs)


def test_three_elements_fit_in_two_short_lines(backend) -> None:
    card = _tensor(backend, np.array([1.0, 2.0, 3.0], np.float32))._repr_html_()
    lines = _visible_lines(card)
    if backend == "dask":  # the header, the cost; the diagram draws the rest
        assert lines[1] == "1 chunk of (3,) · 12 B each · numpy.ndarray · 1 task · 1 graph layer"
    else:
        assert lines[1:] == ["[1., 2., 3.]"]
    assert len(lines) <= 2 and all(len(line) <= 72 for line in lines), lines


def test_each_fact_once(backend) -> None:
    t = _tensor(backend, np.arange(6.0, dtype=np.float32).reshape(2, 3), chunks=(1, 3))
    with TaskCounter() as counter:
        card = t._repr_html_()
    assert counter.tasks == 0
    facts = _facts(card)
    assert facts["class"] == "Tensor" and facts["shape"] == "(2, 3)"
    assert facts["dtype"] == "float32" and facts["backend"] == backend
    assert facts["device"] == home_device(backend)
    visible = "\n".join(_visible_lines(card))
    for fact in ("(2, 3)", "float32", "24 B"):
        assert visible.count(fact) == 1, (fact, visible)
    shown = [part for line in _visible_lines(card) for part in line.split(" · ")]
    assert shown.count(backend) == 1, visible  # (gpulike's device says gpulike:0 as well)
    assert "memory" not in card
    if backend == "dask":
        assert facts["bytes"] == "would take 24 B" and facts["nchunks"] == "2 chunks"
        assert facts["chunk-shape"] == "of (1, 3)" and facts["chunk-bytes"] == "12 B each"
        assert card.count("<svg") == 1 and "<table" not in card  # no second Dask table
    else:
        assert facts["bytes"] == "24 B" and "nchunks" not in facts
        assert "[[0., 1., 2.],\n [3., 4., 5.]]" in card


def test_subclass_instance_attributes_are_shown(backend) -> None:
    m = _tensor(backend, np.array([1.0, 2.0])).as_subclass(Meters)
    m.unit = "m"
    m._cache = "internal"
    card = m._repr_html_()
    assert _facts(card)["class"] == "Meters"
    assert _facts(card)["attr-unit"] == "unit='m'"
    assert "_cache" not in card and "internal" not in card
    assert "attr-" not in interop.tensor([1.0]).as_subclass(Meters)._repr_html_()


def test_attribute_values_are_escaped() -> None:
    m = interop.tensor([1.0]).as_subclass(Meters)
    m.label = "<b>x</b>"
    card = m._repr_html_()
    assert "<b>x</b>" not in card and _facts(card)["attr-label"] == "label='<b>x</b>'"


@pytest.mark.parametrize("make", [
    lambda: interop.tensor(2.5, backend="dask"), lambda: interop.zeros((0, 3), backend="dask"),
    lambda: (lambda d: d[d > 0])(interop.tensor(np.arange(-3.0, 4.0), backend="dask")),
], ids=["0-d", "empty", "unknown-sizes"])
def test_lazy_cards_dask_cannot_draw_run_nothing(make) -> None:
    pytest.importorskip("dask")
    t = make()
    with interop.config(dask_compute="raise"), TaskCounter() as counter:
        card = t._repr_html_()
    assert counter.tasks == 0 and "<svg" not in card
    facts = _facts(card)
    if np.isnan(t.raw.size):
        assert facts["bytes"] == "size unknown until computed" and "None" in facts["shape"]
    else:
        assert facts["bytes"].startswith("would take ")


def test_large_tensor_card_is_bounded() -> None:
    card = interop.tensor(np.arange(1_000_000.0).reshape(1000, 1000))._repr_html_()
    assert len(card) < 3000 and "..." in card
    assert _facts(card)["bytes"] == "7.63 MiB"


# ------------------------------------------------------------------ against Dask's own card
def _dask_numbers(raw) -> dict[str, str]:
    """What Dask's own card reports for ``raw``, read from Dask's API (not from its HTML):
    the bytes of the array and of one (largest) chunk, the chunk count, tasks, graph layers."""
    graph = raw.__dask_graph__()
    chunk_bytes = math.prod(raw.chunksize) * raw.dtype.itemsize
    return {"bytes": f"would take {format_bytes(raw.nbytes)}", "nchunks": f"{raw.npartitions:,} chunks",
            "chunk-shape": f"of {raw.chunksize}", "chunk-bytes": f"{format_bytes(chunk_bytes)} each",
            "tasks": f"{len(graph):,} tasks", "layers": f"{len(graph.layers)} graph layers",
            "exact-bytes": f"{raw.nbytes:,} bytes", "exact-chunk": f"{chunk_bytes:,} bytes"}


def _titles(card: str) -> dict[str, str]:
    return dict(re.findall(r"<span class='interop-([\w-]+)' title='([^']*)'>", card))


@pytest.mark.parametrize("make", [
    lambda da: da.ones((1000, 800), chunks=(250, 200)),  # the issue's array: 16 chunks, 1 layer
    lambda da: (da.ones((1000, 800), chunks=(250, 200)) + 1).sum(axis=0) * 2,
    lambda da: da.random.default_rng(0).standard_normal((60, 50, 40, 3), chunks=(20, 25, 40, 3)),
    lambda da: da.arange(100_000, chunks=30_000).astype("int16").reshape(100, 1000).rechunk((50, 500)),
], ids=["ones", "reduced", "4-d", "rechunked"])
def test_dask_card_shows_dasks_own_numbers(make) -> None:
    """The bytes, chunk bytes, chunk count, task count and graph layers that Dask reports for
    the raw array, rounded as the card rounds (the exact count of bytes in its title)."""
    da = pytest.importorskip("dask.array")
    raw = make(da)
    t = interop.as_tensor(raw)
    with TaskCounter() as counter:
        card = t._repr_html_()
    assert counter.tasks == 0
    facts, titles, dask = _facts(card), _titles(card), _dask_numbers(raw)
    for name in ("bytes", "nchunks", "chunk-shape", "chunk-bytes", "tasks"):
        assert facts[name] == dask[name], (name, facts[name], dask[name])
    assert facts["layers"].removesuffix("s") == dask["layers"].removesuffix("s")
    assert titles["bytes"] == dask["exact-bytes"] and titles["chunk-bytes"] == dask["exact-chunk"]
    assert facts["chunk-type"] == "numpy.ndarray"
    assert card.count("<svg") == 1  # Dask's diagram, whatever the rank
    assert int(facts["nchunks"].split()[0].replace(",", "")) == len(raw.to_delayed().ravel())


def test_the_issues_dask_card_reads_as_one_line_of_cost() -> None:
    """The example of issue 43, as a person reads it beside Dask's card (6.10 MiB, 390.62 kiB,
    16 chunks in 1 graph layer): the same numbers, on the line under the header."""
    da = pytest.importorskip("dask.array")
    lines = _visible_lines(interop.as_tensor(da.ones((1000, 800), chunks=(250, 200)))._repr_html_())
    assert lines == ["Tensor · (1000, 800) · float64 · dask · cpu · would take 6.10 MiB",
                     "16 chunks of (250, 200) · 390.62 KiB each · numpy.ndarray · 16 tasks · "
                     "1 graph layer"]


def test_ipython_plain_text_adds_the_cost_line() -> None:
    """Where HTML is not shown (IPython in a terminal), the text is the repr, and for a chunked
    tensor the cost under it; eager tensors show the repr alone, as torch's."""
    pretty = pytest.importorskip("IPython.lib.pretty").pretty
    d = interop.ones((1000, 800), backend="dask", chunks=(250, 200))
    assert pretty(d).splitlines() == [repr(d), "would take 3.05 MiB · 16 chunks of (250, 200) · "
                                      "195.31 KiB each · numpy.ndarray · 16 tasks · 1 graph layer"]
    e = interop.tensor([1.0, 2.0])
    assert pretty(e) == repr(e)
    if importlib.util.find_spec("torch") is not None:  # the torch face: the same lines
        face = d.as_torch()
        assert pretty(face).splitlines() == [repr(face), pretty(d).splitlines()[1]]
        assert pretty(e.as_torch()) == repr(e.as_torch())


def test_cubed_card_reads_its_plan() -> None:
    """A Cubed tensor's cost line: its chunks, and the tasks and stages of the plan Cubed's own
    card reads."""
    pytest.importorskip("cubed")
    c = interop.ones((1000, 800), backend="cubed", chunks=(250, 200)) + 1
    facts, plan = _facts(c._repr_html_()), c.raw.plan()
    assert facts["nchunks"] == f"{c.raw.npartitions} chunks" and facts["chunk-shape"] == "of (250, 200)"
    assert facts["tasks"] == f"{plan.num_tasks} tasks" and facts["layers"] == f"{plan.num_stages} stages"


# ------------------------------------------------------------------ in a browser
_NOTEBOOK = [  # the cells of a notebook whose outputs are the cards a person looks at
    "import numpy as np\nimport interop\n\nclass Meters(interop.Tensor):\n    pass",
    "interop.tensor([1.0, 2.0, 3.0])",
    "interop.tensor(np.ones((3, 4)), backend='dask', chunks=(1, 4))",
    "m = interop.tensor([1.0, 2.0, 3.0]).as_subclass(Meters)\nm.unit = 'm'\nm",
    "(interop.tensor([1.0, 2.0, 3.0]).as_torch(requires_grad=True) * 2).sum()",
]
# JupyterLab 4's theme variables that the card reads (its light and dark themes set them on
# the page's root), the page's background, and the text colour the page itself has.
THEMES = {
    "light": {"background": "#ffffff", "color": "#000000", "vars": {
        "--jp-layout-color0": "white", "--jp-content-font-color0": "rgba(0, 0, 0, 1)",
        "--jp-content-font-color2": "rgba(0, 0, 0, 0.54)", "--jp-border-color2": "#e0e0e0",
        "--jp-brand-color1": "#1976d2"}},
    "dark": {"background": "#111111", "color": "#ffffff", "vars": {
        "--jp-layout-color0": "#111111", "--jp-content-font-color0": "rgba(255, 255, 255, 1)",
        "--jp-content-font-color2": "rgba(255, 255, 255, 0.54)", "--jp-border-color2": "#616161",
        "--jp-brand-color1": "#42a5f5"}},
}
# Reads, after layout, what a browser shows of each card: its text as rendered (innerText),
# its box, where the chunk diagram is drawn and the lines' boxes; written into the page for
# --dump-dom.
_REPORT = """<script>
const box = e => { const r = e.getBoundingClientRect();
  return {left: r.left, top: r.top, width: r.width, height: r.height}; };
const cards = [...document.querySelectorAll('.interop-tensor')].map(card => {
  const svg = card.querySelector('svg');
  return {text: card.innerText, ...box(card), diagram: svg && box(svg),
          lines: [...card.querySelectorAll(':scope > div:not(.interop-diagram), pre')].map(box)};
});
document.body.insertAdjacentHTML('beforeend',
  '<pre id="report" hidden>' + JSON.stringify(cards).replace(/</g, '&lt;') + '</pre>');
</script>"""
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--force-device-scale-factor=1", "--hide-scrollbars")


def _chromium() -> str:
    """Debian's chromium (``apt-get install chromium``; CI's entry .ci/run installs it)."""
    import shutil
    found = next((p for p in map(shutil.which, ("chromium", "chromium-browser",
                                                "google-chrome")) if p), None)
    if found is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def _executed_notebook_outputs() -> list[str]:
    """The cards a notebook shows once run: each cell's ``text/html`` execute_result."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("torch")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in _NOTEBOOK])
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    outputs = [o["data"]["text/html"] for c in nb.cells for o in c.outputs
               if o.get("output_type") == "execute_result"]
    assert len(outputs) == 4, "every tensor cell shows a card"
    return outputs


def _page(outputs: list[str], theme: str) -> str:
    """The outputs in output areas, on a page themed as JupyterLab themes it."""
    look = THEMES[theme]
    variables = ";".join(f"{k}:{v}" for k, v in look["vars"].items())
    areas = "".join(f"<div class='jp-OutputArea-output' style='margin:8px'>{o}</div>"
                    for o in outputs)
    return (f"<!DOCTYPE html><html><body data-jp-theme-light='{theme == 'light'}' style='margin:0;"
            f"background:{look['background']};color:{look['color']};{variables}'>"
            f"{areas}{_REPORT}</body></html>")


def _render(browser: str, page, tmp_path) -> tuple[list[dict], Any]:
    """``page`` in headless chromium: the report of what it laid out, and a screenshot."""
    import json
    import subprocess

    from PIL import Image
    url = page.as_uri()
    common = [browser, *CHROMIUM_FLAGS, "--window-size=800,900"]
    dom = subprocess.run([*common, f"--user-data-dir={tmp_path / 'profile-dom'}",
                          "--dump-dom", url], capture_output=True, text=True, timeout=120)
    shot = page.with_suffix(".png")
    subprocess.run([*common, f"--user-data-dir={tmp_path / 'profile-shot'}",
                    f"--screenshot={shot}", url], capture_output=True, timeout=120)
    found = re.findall(r"<pre id=\"report\" hidden=\"\">(\[.*?)</pre>", dom.stdout, re.S)
    assert found and shot.exists(), f"chromium drew nothing: {dom.stderr[-2000:]}"
    return json.loads(html_lib.unescape(found[-1])), Image.open(shot).convert("RGB")


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(linear, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(image, box: dict) -> float:
    """WCAG's contrast ratio between the text drawn in ``box`` and the background: the
    luminances of the pixel farthest from the background and of the background (the most
    common pixel)."""
    region = image.crop((int(box["left"]), int(box["top"]),
                         int(box["left"] + box["width"]), int(box["top"] + box["height"])))
    counts = sorted(region.getcolors(1 << 20), reverse=True)
    ground = _luminance(counts[0][1])
    ink = max((_luminance(c) for _, c in counts), key=lambda lum: abs(lum - ground))
    light, dark = max(ground, ink), min(ground, ink)
    return (light + 0.05) / (dark + 0.05)


def _line_runs(image, x: int, top: int, bottom: int, theme: str) -> int:
    """How many separate lines a vertical line at ``x`` crosses between the rows: lines are
    drawn in the text colour, so they stand out from the diagram's fill toward it (darker on
    light, lighter on dark; a 1-pixel line is drawn half-toned over two rows)."""
    fill = sum(image.getpixel((x, top + 15)))
    runs, inside = 0, False
    for y in range(top, bottom):
        total = sum(image.getpixel((x, y)))
        line = total < fill - 100 if theme == "light" else total > fill + 100
        runs, inside = runs + (line and not inside), line
    return runs


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_executed_notebook_shows_the_cards_in_chromium(tmp_path, theme) -> None:
    """What a person sees in a browser, in JupyterLab's light and dark themes: the header line
    and the values of a NumPy card, a Dask card's cost line and chunk diagram (three row
    chunks, Dask's colour, its lines in the text colour), a subclass's attribute line, the
    torch face's autograd line; every line of text at WCAG AA contrast (4.5:1) or better."""
    browser = _chromium()
    pytest.importorskip("dask")
    pytest.importorskip("PIL")
    page = tmp_path / f"cards-{theme}.html"
    page.write_text(_page(_executed_notebook_outputs(), theme))
    cards, image = _render(browser, page, tmp_path)
    numpy_card, dask_card, meters_card, face_card = cards
    assert numpy_card["text"].splitlines() == ["Tensor · (3,) · float32 · numpy · cpu · 12 B",
                                               "[1., 2., 3.]"]
    assert dask_card["text"].splitlines()[:2] == [
        "Tensor · (3, 4) · float64 · dask · cpu · would take 96 B",
        "3 chunks of (1, 4) · 32 B each · numpy.ndarray · 3 tasks · 1 graph layer"]
    assert meters_card["text"].splitlines() == [
        "Meters · (3,) · float32 · numpy · cpu · 12 B", "unit='m'", "[1., 2., 3.]"]
    assert face_card["text"].splitlines() == [
        "TorchTensor · () · float32 · numpy · cpu · 4 B",
        "requires_grad=True · grad_fn=<SumBackward0>", "12."]
    assert numpy_card["height"] < 60 and meters_card["height"] < 80  # short lines
    for card in cards:
        for line in card["lines"]:
            assert _contrast(image, line) >= 4.5, (theme, card["text"], line)
    box = dask_card["diagram"]
    assert box and box["width"] > 100 and box["height"] > 80
    # the screenshot: Dask's orange fill inside the diagram, split by lines into the three
    # chunks (four lines: the two edges and two boundaries), beside the size labels
    left, top = int(box["left"]), int(box["top"])
    fill = image.getpixel((left + 60, top + 15))
    assert fill[0] > fill[1] > fill[2] and fill[0] - fill[2] > 50, f"no orange fill: {fill}"
    assert _line_runs(image, left + 60, top, top + 95, theme) == 4
