"""Jupyter's HTML card: a header line with each fact once, then the values (or Dask's chunk
diagram); "would take N bytes" for lazy tensors; a subclass's instance attributes shown."""

from __future__ import annotations

import html as html_lib
import re

import numpy as np
import pytest

import interop
from tests.test_repr import TaskCounter


class Meters(interop.Tensor):
    pass


def _facts(card: str) -> dict[str, str]:
    """The header's facts by name (each appears at most once: duplicates fail here)."""
    found = re.findall(r"<span class='interop-([\w-]+)'>([^<]*)</span>", card)
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), f"a fact repeats: {names}"
    return {name: html_lib.unescape(text) for name, text in found}


def _visible_lines(card: str) -> list[str]:
    """The text a browser shows, one entry per line (block elements and <pre> newlines)."""
    text = re.sub(r"<svg.*?</svg>", "", card, flags=re.S)
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
    if backend == "dask":
        assert len(lines) == 1  # the header; the diagram draws the rest
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
    assert facts["device"] == ("cuda:0" if backend == "cupy" else "cpu")
    visible = "\n".join(_visible_lines(card))
    for fact in ("(2, 3)", "float32", "24 B", backend):
        assert visible.count(fact) == 1, (fact, visible)
    assert "memory" not in card
    if backend == "dask":
        assert facts["bytes"] == "would take 24 B" and facts["chunks"] == "chunks (1, 3)"
        assert card.count("<svg") == 1 and "<table" not in card  # no second Dask table
    else:
        assert facts["bytes"] == "24 B" and "chunks" not in facts
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
        assert facts["bytes"] == "size unknown until computed" and "nan" in facts["shape"]
    else:
        assert facts["bytes"].startswith("would take ")


def test_large_tensor_card_is_bounded() -> None:
    card = interop.tensor(np.arange(1_000_000.0).reshape(1000, 1000))._repr_html_()
    assert len(card) < 3000 and "..." in card
    assert _facts(card)["bytes"] == "7.63 MiB"


def test_cards_render_in_a_headless_browser(tmp_path) -> None:
    """Chromium draws the NumPy, Dask and subclass cards: one box each, header text as built."""
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("dask")
    meters = interop.tensor([1.0, 2.0, 3.0]).as_subclass(Meters)
    meters.unit = "m"
    cards = [interop.tensor([1.0, 2.0, 3.0])._repr_html_(),
             interop.tensor(np.ones((3, 4)), backend="dask", chunks=(1, 4))._repr_html_(),
             meters._repr_html_()]
    page_html = "<html><body>" + "<hr>".join(cards) + "</body></html>"
    with sync_api.sync_playwright() as p:
        try:
            browser = p.chromium.launch()
        except sync_api.Error as error:
            pytest.skip(f"Playwright's Chromium is not installed: {str(error).splitlines()[0]}")
        page = browser.new_page(viewport={"width": 600, "height": 400})
        page.set_content(page_html)
        boxes = page.locator(".interop-tensor")
        assert boxes.count() == 3
        texts = [boxes.nth(i).inner_text() for i in range(3)]
        heights = [boxes.nth(i).bounding_box()["height"] for i in range(3)]
        shot = page.screenshot(path=str(tmp_path / "cards.png"), full_page=True)
        browser.close()
    assert texts[0].splitlines() == ["Tensor · (3,) · float32 · numpy · cpu · 12 B", "[1., 2., 3.]"]
    assert "would take 96 B" in texts[1] and "unit='m'" in texts[2]
    assert heights[0] < 60 and heights[2] < 80  # a few short lines, not a table
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 1000
