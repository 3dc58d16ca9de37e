"""Every table entry torch's operator database has samples for, on each interop surface it
has, on NumPy and on Dask, against torch.

tests/test_torch_opdb.py runs op_db through the torch surface on NumPy. Here the same
samples (the first few of each operator, float32) call the entry as an interop function
(``interop.<name>``) and as a Tensor method (``t.<name>(...)``), on NumPy tensors and on
Dask tensors of several chunks, and the outcome is compared with torch's: values, dtype,
shape, and torch's refusals. What each record declares its backend lacks (``lacks=``)
must raise ``BackendLacksError`` there; the known differences are listed with their
reasons in tests/helpers/table_surfaces_xfail.py (strict: a fixed one must leave the list).
``python -m tests.test_table_surfaces`` surveys every case and prints the failures.
"""

from __future__ import annotations

import functools
import sys

import pytest

import interop
from interop.errors import BackendLacksError
from interop.ops import TABLE
from tests.helpers.table_surfaces_xfail import TOO_SLOW, XFAIL

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it

from tests.test_torch_opdb import RANDOM, _call, compare, float32_operators, to_interop  # noqa: E402

SAMPLES_PER_OPERATOR = 3  # the first few: op_db's first samples cover the plain forms
BACKENDS = ("numpy", "dask")
SURFACES = ("function", "method")
EDGES = (0, -1)  # Dask inputs in two chunks along the first and the last axis (at most four
# chunks: a graph per sample stays small; reductions, scans and contractions meet a boundary)


@functools.cache
def _entries_by_torch_name() -> dict:
    return {name: entry for entry in TABLE.values() for name in entry.torch}


def entry_of(opinfo):
    """The table entry behind an op_db operator, found by its torch name; None if it has
    none, or if the operator is a lambda around one (its samples then need not line up
    with the function's parameters: op_db's ``where`` takes ``(input, condition, other)``)."""
    name = torch.overrides.resolve_name(opinfo.op)
    if name is None:
        return None
    entries = _entries_by_torch_name()
    return entries.get(name) or entries.get(name.replace("torch.functional.", "torch."))


def callable_on(entry, surface: str, opinfo):
    """The interop callable a sample calls on ``surface``, or None where the entry has none."""
    if surface == "function":
        return getattr(interop, entry.name, None) if entry.function else None
    if entry.method and opinfo.method_variant is not None and not entry.property:
        return lambda input, *args, **kwargs: getattr(input, entry.method)(*args, **kwargs)
    return None


def cases() -> list[tuple[str, str, str]]:
    """(operator, surface, backend) for every op_db operator with a table entry."""
    out = []
    for name, opinfo in float32_operators().items():
        entry = entry_of(opinfo)
        if entry is None or name in RANDOM:
            continue
        for surface in SURFACES:
            if callable_on(entry, surface, opinfo) is not None:
                out.extend((name, surface, backend) for backend in BACKENDS
                           if (name, surface, backend) not in TOO_SLOW)
    return out


@functools.cache
def samples(name: str) -> tuple:
    """The first samples of an operator with a tensor first argument, as (args, kwargs);
    made once per process (op_db's generators are slow), cloned for each use."""
    torch.manual_seed(0)
    out = []
    for sample in float32_operators()[name].sample_inputs("cpu", torch.float32,
                                                          requires_grad=False):
        if len(out) == SAMPLES_PER_OPERATOR:
            break
        if isinstance(sample.input, torch.Tensor):
            out.append(((sample.input, *sample.args), sample.kwargs))
    return tuple(out)


def _clone(x):
    if isinstance(x, torch.Tensor):
        return x.clone()
    if type(x) in (list, tuple):
        return type(x)(_clone(v) for v in x)
    return {k: _clone(v) for k, v in x.items()} if isinstance(x, dict) else x


def run_case(name: str, surface: str, backend: str) -> int:
    """Run the samples of one case; returns how many ran (raises on the first difference)."""
    opinfo = float32_operators()[name]
    entry = entry_of(opinfo)
    call = callable_on(entry, surface, opinfo)
    ran = 0
    for args, kwargs in samples(name):
        args, kwargs = _clone(args), _clone(kwargs)
        ran += 1
        i_args, i_kwargs = (to_interop(a, backend, EDGES) for a in (args, kwargs))
        if backend in entry.lacks:
            with pytest.raises(BackendLacksError):
                call(*i_args, **i_kwargs)
            continue
        expected, refused = _call(opinfo.op, args, kwargs)
        got, failed = _call(call, i_args, i_kwargs)
        where = f"{name} as {surface} on {backend}"
        if refused is not None:
            assert failed is not None, f"{where}: torch raises {type(refused).__name__}; " \
                "interop returned"
            continue
        if failed is not None:
            raise failed
        compare(got, expected, where)
    return ran


CASES = cases()


@pytest.mark.parametrize("name,surface,backend", [
    pytest.param(*c, marks=pytest.mark.xfail(reason=XFAIL[c], strict=True)) if c in XFAIL
    else c for c in CASES], ids=["-".join(c) for c in CASES])
def test_entry_on_surface(name, surface, backend):
    if not run_case(name, surface, backend):
        pytest.skip("no sample has a tensor first argument")


def test_xfail_list_names_cases_that_exist():
    assert set(XFAIL) <= set(CASES), sorted(set(XFAIL) - set(CASES))


def test_most_of_the_table_is_reached():
    """The cases cover the table: every entry torch's op_db exercises is run here."""
    reached = {entry_of(float32_operators()[name]).name for name, _, _ in CASES}
    assert len(reached) >= 0.6 * len(TABLE), f"{len(reached)} of {len(TABLE)} entries"


def survey() -> dict[tuple[str, str, str], str]:
    """case -> the first line of its failure, for every case that fails."""
    failures = {}
    for case in CASES:
        try:
            run_case(*case)
        except Exception as exc:  # noqa: BLE001 - any failure is a finding
            failures[case] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:140]}"
    return failures


if __name__ == "__main__":
    found = survey()
    print(f"{len(CASES) - len(found)}/{len(CASES)} cases pass", file=sys.stderr)
    for case, why in sorted(found.items()):
        print(f"    {case!r}: {why!r},")
