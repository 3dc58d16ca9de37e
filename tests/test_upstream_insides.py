"""Other libraries' private names and undocumented behaviour that interop relies on
(docs/architecture.md, "Other libraries' insides"): each guard is tested by simulating the
upstream change (the name taken away, the behaviour changed) and seeing the loud failure:
a clear error or an InteropWarning, never a wrong value, an unsafe checkpoint or a broken
``import torch`` / ``import einops``."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import interop
from interop.errors import InteropWarning
from interop.surfaces import after_import


# ------------------------------------------------------------------ the after-import hooks
def test_a_failing_registration_warns_and_the_host_import_goes_on(tmp_path, monkeypatch):
    """The hook runs inside the user's import: what it raises becomes a warning."""
    (tmp_path / "interop_upstream_probe.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def register(module):
        raise ImportError("cannot import name 'AbstractBackend'")
    after_import.when_imported("interop_upstream_probe", register)
    try:
        with pytest.warns(InteropWarning, match="could not register with interop_upstream_probe"
                                                ".*AbstractBackend"):
            import interop_upstream_probe
        assert interop_upstream_probe.VALUE == 42
    finally:
        sys.modules.pop("interop_upstream_probe", None)


def test_einops_moving_its_abstract_backend_leaves_import_einops_working(monkeypatch):
    einops_backends = pytest.importorskip("einops._backends")
    from interop.surfaces import einops_backend
    monkeypatch.delattr(einops_backends, "AbstractBackend")
    with pytest.warns(InteropWarning, match="einops._backends"):
        after_import.when_imported("einops._backends",
                                   lambda m: einops_backend._define_backend(interop))


_EINOPS_MOVED = """
import sys, warnings
import interop
class Moved:  # einops' backends module, as a future einops might lay it out
    def find_spec(self, name, path, target=None):
        if name != "einops._backends":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            del module.AbstractBackend
        spec.loader.exec_module = exec_module
        return spec
hook = next(f for f in sys.meta_path if getattr(f, "name", None) == "einops._backends")
sys.meta_path.insert(sys.meta_path.index(hook) + 1, Moved())  # interop's hook wraps it
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import einops
print("imported", einops.__name__, any("einops._backends" in str(w.message) for w in caught))
"""


def test_import_einops_in_a_fresh_process_with_the_name_moved():
    """The whole path, as a user meets it: interop first, then an einops without the name."""
    pytest.importorskip("einops")
    out = subprocess.run([sys.executable, "-c", _EINOPS_MOVED], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["imported", "einops", "True"]


def test_torch_renaming_its_collate_table_leaves_import_torch_working(monkeypatch):
    pytest.importorskip("torch")
    from interop.surfaces import torch_participant
    collate = sys.modules[torch_participant.COLLATE_MODULE]
    monkeypatch.delattr(collate, "default_collate_fn_map")
    with pytest.warns(InteropWarning, match="could not register with torch"):
        torch_participant.register_collate(interop.Tensor)


# ------------------------------------------------------------------ DType and torch.finfo
def test_finfo_and_iinfo_refuse_interop_dtypes_with_this_torch():
    torch = pytest.importorskip("torch")
    for d, info in ((interop.float64, torch.finfo), (interop.int64, torch.iinfo)):
        with pytest.raises(TypeError):
            info(interop.tensor([1], dtype=d).dtype)
    interop.dtypes.check_torch_reads_no_type(torch)  # no warning with the torch installed


_F64, _I64, _F32 = (interop.dtypes.public_dtype(np.dtype(n))  # t.dtype's objects
                    for n in ("float64", "int64", "float32"))


def _fake_torch(torch, reads_a_type):
    """A torch whose finfo/iinfo answer (uint8's limits, as a moved struct would read)
    where ``reads_a_type(dtype)`` holds, and refuse as this torch does elsewhere."""
    def info(real, name):
        def read(d):
            if isinstance(d, interop.dtypes.DType) and reads_a_type(d):
                return torch.iinfo(torch.uint8)
            return real(d)
        read.__name__ = name
        return read
    return types.SimpleNamespace(__version__="9.9", finfo=info(torch.finfo, "finfo"),
                                 iinfo=info(torch.iinfo, "iinfo"))


@pytest.fixture
def dtype_layout(monkeypatch):
    """DType's layout and its torch protocol, put back after the test."""
    from interop.dtypes import DType
    monkeypatch.setattr(DType, "__torch_function__", DType.__dict__["__torch_function__"])
    first = DType._LAYOUT
    yield DType
    interop.dtypes._point_layouts_at(first)


def test_a_torch_reading_the_sentinel_byte_gets_another_layout(dtype_layout):
    """Simulated: a torch whose ScalarTypes reach 0x80, so the sentinel reads as a type: the
    check finds another last byte this torch refuses, and finfo(t.dtype) raises again."""
    torch = pytest.importorskip("torch")
    fake = _fake_torch(torch, lambda d: id(d._layout) & 0xFF == 0x80)
    assert fake.finfo(_F64).bits == 8  # read as another type before the check
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        interop.dtypes.check_torch_reads_no_type(fake)
    assert id(_F64._layout) & 0xFF != 0x80
    for d, info in ((_F64, fake.finfo), (_I64, fake.iinfo),
                    (_F64, torch.finfo), (_I64, torch.iinfo)):
        with pytest.raises(TypeError):
            info(d)
    assert torch.zeros(2, dtype=_F32).dtype == torch.float32  # still accepted


def test_a_torch_reading_dtypes_as_a_type_is_reported(dtype_layout):
    """Simulated: a torch whose struct moved, so iinfo reads interop's dtype as uint8 whatever
    the layout: interop's dtypes leave torch's dtype arguments (a TypeError, never another
    type's limits) and an InteropWarning says so; import torch and torch's own dtypes work."""
    torch = pytest.importorskip("torch")
    fake = _fake_torch(torch, lambda d: d.numpy == np.int64)
    with pytest.warns(InteropWarning, match=r"torch.iinfo\(<interop dtype int64>\) answers.*"
                                            r"refused in torch's dtype arguments"):
        interop.dtypes.check_torch_reads_no_type(fake)
    for call in (lambda: torch.iinfo(_I64), lambda: torch.finfo(_F64),
                 lambda: torch.zeros(2, dtype=_F32)):
        with pytest.raises(TypeError, match="must be torch.dtype"):
            call()
    assert torch.zeros(2, dtype=_F32.to_torch()).dtype == torch.float32
    assert torch.iinfo(torch.int64).max == 2 ** 63 - 1


# ------------------------------------------------------------------ torch.save recognition
def test_torch_renaming_its_savers_keeps_checkpoints_safe(monkeypatch):
    """Without ``torch.serialization._save``/``_legacy_save`` (simulated: renamed, as interop
    looks them up) interop cannot tell torch.save from a pickle: it warns and saves torch
    tensors, which the safe loader accepts."""
    torch = pytest.importorskip("torch")
    from interop.surfaces.torch_face import saving
    monkeypatch.setattr(saving, "_SAVER_NAMES", ("_save_v2", "_legacy_save_v2"))
    monkeypatch.setattr(saving, "_SAVERS", [])
    buffer = io.BytesIO()
    with pytest.warns(InteropWarning, match="by which interop recognises torch.save"):
        torch.save({"w": interop.tensor(np.arange(3.0)).as_torch()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)["w"]
    assert type(loaded) is torch.Tensor and loaded.tolist() == [0.0, 1.0, 2.0]


def test_checkpoints_are_torch_tensors_with_this_torch():
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save({"w": interop.tensor(np.arange(3.0)).as_torch()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)["w"]
    assert type(loaded) is torch.Tensor and loaded.tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------------ torch's Python bodies
def _torch_like(source: str, names: dict) -> types.FunctionType:
    namespace: dict = dict(names)
    exec(textwrap.dedent(source), namespace)
    fn = namespace["composite"]
    fn.__module__ = "torch.nn.functional"
    return fn


def test_a_body_checking_an_unknown_spelling_is_refused_by_name():
    torch = pytest.importorskip("torch")
    from interop.surfaces.torch_participant import _torch_python_body
    fn = _torch_like("""
        def composite(x):
            if has_torch_function_variadic(x) or has_torch_function_nary(x):
                return handle_torch_function(composite, (x,), x)
            return x
        """, {"has_torch_function_variadic": torch.overrides.has_torch_function_variadic,
              "has_torch_function_nary": torch.overrides.has_torch_function_variadic,
              "handle_torch_function": torch.overrides.handle_torch_function})
    route = _torch_python_body(fn)
    with pytest.raises(TypeError, match="checks has_torch_function_nary, which interop does not"):
        route.run(interop.Tensor, (interop.tensor([1.0]),), {})


def test_a_body_calling_back_without_end_is_a_clear_recursion_error():
    """Simulated: torch's body dispatches unconditionally (not through the checks answered)."""
    torch = pytest.importorskip("torch")
    fn = _torch_like("""
        def composite(x):
            if has_torch_function_unary(x):
                pass
            return handle_torch_function(composite, (x,), x)
        """, {"has_torch_function_unary": torch.overrides.has_torch_function_unary,
              "handle_torch_function": torch.overrides.handle_torch_function})
    with pytest.raises(RecursionError, match="reached interop 32 times inside its own body"):
        fn(interop.tensor([1.0]))


# ------------------------------------------------------------------ Dask and Cubed state
def test_a_stale_dask_write_fails_by_name(monkeypatch):
    da = pytest.importorskip("dask.array")
    from interop.backends.dask import backend as dask_backend
    raw, new = da.ones(4, chunks=2), da.zeros(6, chunks=3)
    assert raw.shape == (4,)  # cached by Dask
    monkeypatch.setattr(da.Array, "_reset_cache", lambda self, key=None: None)  # not dropped
    with pytest.raises(RuntimeError, match="left it stale"):
        dask_backend.replace_in_place(raw, new)


def test_cubed_state_interop_does_not_know_fails_by_name():
    pytest.importorskip("cubed")
    from interop.backends.cubed import backend as cubed_backend
    from interop.backends.cubed.held import source
    t = interop.tensor(np.arange(4.0), backend="cubed")
    new = source(t.raw)
    new._cached_blocks = ()  # a Cubed that keeps more state on its arrays
    with pytest.raises(RuntimeError, match=r"cannot carry its state \['_cached_blocks'\]"):
        cubed_backend.replace_in_place(source(t.raw), new)


_CUBED_UNTOUCHED = """
import cubed, numpy as np
before = {c: dict(vars(c)) for c in cubed.Array.__mro__}
import interop
t = interop.tensor(np.arange(6.0).reshape(2, 3), backend="cubed")
u = (t[::-1] + 1).sum(dim=0).T
assert np.allclose(u.numpy(), (np.arange(6.0).reshape(2, 3)[::-1] + 1).sum(0))
assert {c: dict(vars(c)) for c in cubed.Array.__mro__} == before, "cubed.Array was modified"
try:
    cubed.ones((4,), chunks=2)[::-1]
except NotImplementedError:
    print("cubed's own indexing")
print(type(t.raw).__name__, isinstance(t.raw, cubed.Array))
"""


def test_interop_leaves_cubeds_array_class_as_cubed_made_it():
    """NumPy's methods and indexing are interop's subclass's (Held), not patched into
    ``cubed.Array``: Cubed code that never touches interop keeps Cubed's behaviour."""
    pytest.importorskip("cubed")
    out = subprocess.run([sys.executable, "-c", _CUBED_UNTOUCHED], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["cubed's own indexing", "Held True"]


def test_torch_without_the_dynamo_mark_warns_and_eager_runs_on(monkeypatch):
    torch = pytest.importorskip("torch")
    from torch._C._dynamo import eval_frame

    from interop.surfaces.torch_face import compiling
    monkeypatch.delattr(eval_frame, "set_code_exec_strategy")

    def dispatch():
        return 1
    with pytest.warns(InteropWarning, match="set_code_exec_strategy"):
        compiling.run_not_traced(dispatch)
    face = interop.tensor(np.arange(3.0)).as_torch()
    assert torch.equal(torch.as_tensor((face * 2).as_interop().numpy()), torch.tensor([0.0, 2.0, 4.0]))


# ------------------------------------------------------------------ pinned behaviour
def test_dask_warns_in_the_words_interop_refuses():
    """numpy_protocols turns Dask's FutureWarning for a NumPy function it lacks (it would then
    compute) into interop's refusal, by the warning's text: pinned here, so a Dask that words
    it otherwise fails this test (and the pre-release run) before users meet a silent compute."""
    da = pytest.importorskip("dask.array")
    import re
    import warnings

    from interop.surfaces.numpy_protocols import _DASK_COMPUTES
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.trim_zeros(da.ones(4, chunks=2))
    assert any(w.category is FutureWarning and re.match(_DASK_COMPUTES, str(w.message))
               for w in caught), [str(w.message) for w in caught]
    t = interop.tensor(np.ones(4), backend="dask")
    with pytest.raises(TypeError, match="not implemented by the dask backend"):
        np.trim_zeros(t)


def test_array_api_compats_laziness_probe_is_recognised():
    """config._asked_by_laziness_probe knows array-api-compat's ``is_lazy_array`` by its
    frame (function name and module): pinned by calling it on a Dask tensor, which must read
    as lazy without computing."""
    pytest.importorskip("dask")
    from array_api_compat import is_lazy_array
    with interop.config(dask_compute="raise"):
        assert is_lazy_array(interop.tensor(np.ones(3), backend="dask")) is True
