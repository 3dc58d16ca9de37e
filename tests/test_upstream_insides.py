"""Other libraries' private names and undocumented behaviour that interop relies on
(docs/architecture.md, "Other libraries' insides"): each guard is tested by simulating the
upstream change (the name taken away, the behaviour changed) and seeing the loud failure:
a clear error or an InteropWarning, never a wrong value, an unsafe checkpoint or a broken
``import torch`` / ``import einops``."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
import textwrap
import types
import warnings

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
    interop.tensor([0.0]).as_torch()  # the face's class made first (its creation marks it too)
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


# ------------------------------------------------------------------ private names, one helper
@pytest.fixture
def lookups():
    """interop.upstream.private's cache, emptied before and after: the test takes names away."""
    from interop.upstream import private
    private.cache_clear()
    yield private
    private.cache_clear()


def test_a_moved_private_name_fails_by_name_and_release(lookups):
    from interop.upstream import UpstreamChangedError
    with pytest.raises(UpstreamChangedError, match=rf"numpy._NoValueMoved, which numpy "
                                                   rf"{np.__version__} does not provide"):
        lookups("numpy", "_NoValueMoved")
    assert lookups("copyreg", "_slotnames") is __import__("copyreg")._slotnames


def _decomposition_of_an_unrecorded_overload():
    torch = pytest.importorskip("torch")
    from interop.surfaces.torch_face import decompose
    return decompose._decomposition(torch.ops.aten.addcmul.default)


def _decomposition_of_a_composite_overload():
    torch = pytest.importorskip("torch")
    from interop.surfaces.torch_face import decompose
    return decompose._decomposition(torch.ops.aten.square.default)


def _the_dispatch_mode(monkeypatch):
    pytest.importorskip("torch")
    from interop.surfaces.torch_face import decompose
    monkeypatch.setattr(decompose, "_mode_class", [])
    return decompose.on_backend_mode()


def _dask_out(monkeypatch):
    da = pytest.importorskip("dask.array")
    from interop.backends.dask import ufunc_methods
    return ufunc_methods._write(da.zeros(3, chunks=3), da.ones(3, chunks=3))


def _widgets(monkeypatch):
    pytest.importorskip("distributed")
    from interop.backends.dask import backend as dask_backend
    return dask_backend._widgets_available()


def _cubed_chunks(monkeypatch):
    pytest.importorskip("xarray")
    pytest.importorskip("cubed")
    from interop.surfaces.xarray_chunks import CubedTensors
    return CubedTensors().normalize_chunks(2, shape=(4,), dtype=np.float64)


def _cubed_unify(monkeypatch):
    pytest.importorskip("xarray")
    pytest.importorskip("cubed")
    from interop.surfaces.xarray_chunks import CubedTensors
    t = interop.tensor(np.arange(4.0), backend="cubed")
    return CubedTensors().unify_chunks(t, "i")


def _tensor_subclass(monkeypatch):
    return type("Slotted", (interop.Tensor,), {"__slots__": ("unit",)})


_PRIVATE_LOOKUPS = {  # the private name, taken away -> the interop code reaching it
    ("torch._decomp", "decomposition_table"): lambda mp: _decomposition_of_an_unrecorded_overload(),
    ("torch._C", "_dispatch_has_kernel_for_dispatch_key"):
        lambda mp: _decomposition_of_a_composite_overload(),
    ("torch.utils._python_dispatch", "TorchDispatchMode"): _the_dispatch_mode,
    ("dask.array.core", "handle_out"): _dask_out,
    ("distributed.utils", "is_kernel"): _widgets,
    ("cubed.vendor.dask.array.core", "normalize_chunks"): _cubed_chunks,
    ("cubed.core.ops", "unify_chunks"): _cubed_unify,
    ("copyreg", "_slotnames"): _tensor_subclass,
}


@pytest.mark.parametrize("module, name", list(_PRIVATE_LOOKUPS),
                         ids=[f"{m}.{n}" for m, n in _PRIVATE_LOOKUPS])
def test_a_private_name_taken_away_fails_loudly_where_interop_reaches_it(module, name, lookups,
                                                                         monkeypatch):
    """Simulated: a release without the name. The interop code that reaches it raises an
    UpstreamChangedError naming it."""
    import importlib
    import re

    from interop.upstream import UpstreamChangedError
    pytest.importorskip(module.partition(".")[0])
    monkeypatch.delattr(importlib.import_module(module), name)
    with pytest.raises(UpstreamChangedError) as caught:
        _PRIVATE_LOOKUPS[module, name](monkeypatch)
    assert re.search(rf"interop relies on {re.escape(module)}\.{name}\b", str(caught.value))


_WITHOUT = """
import sys{setup}
try:
    import interop
    {use}
except Exception as exc:
    print(type(exc).__name__, exc)
"""


@pytest.mark.parametrize("setup, use, named", [
    ("\ndel sys._getframe", "", "sys._getframe, which Python"),
    ("\nimport numpy\ndel numpy._NoValue", "", "numpy._NoValue, which numpy"),
    ("\nimport cubed.core.ops\ndel cubed.core.ops.general_blockwise",
     "interop.tensor([1.0], backend='cubed')", "cannot import name 'general_blockwise'"),
    ("\nimport dask.array\ndel dask.array.Array._meta", "interop.tensor([1.0], backend='dask')",
     "dask.array.Array._meta, which dask"),
    ("\nimport array_api_strict._array_object as m\ndel m.Array",
     "interop.tensor([1.0], backend='strict')", "cannot import name 'Array'"),
], ids=["frames", "NoValue", "cubed-ops", "dask-meta", "strict-array"])
def test_a_name_interop_imports_taken_away_fails_at_import_by_name(setup, use, named):
    """Simulated in a fresh process: the name gone before interop (or its backend) loads."""
    for library in ("cubed", "dask", "array_api_strict"):
        if f"import {library}" in setup:
            pytest.importorskip(library)
    out = subprocess.run([sys.executable, "-c", _WITHOUT.format(setup=setup, use=use)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("UpstreamChangedError interop relies on"), out.stdout
    assert named in out.stdout, out.stdout


# ------------------------------------------------------------------ frames
def test_a_refused_batch_norm_takes_its_count_back_with_this_torch():
    """torch_participant._calling_batch_norm finds _BatchNorm.forward's frame: the count torch
    made before the refused call is taken back (the module is left as it was)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("dask")
    module = torch.nn.BatchNorm1d(3).train()
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError) as caught:
        module(interop.tensor(np.ones((4, 3)), backend="dask"))
    assert int(module.num_batches_tracked) == 0
    assert not getattr(caught.value, "__notes__", None)


def test_a_torch_without_batch_norms_forward_says_the_count_stays(monkeypatch, lookups):
    """Simulated: torch renames _BatchNorm. The refused call's DaskComputeError says that the
    count torch made stays (a note on the error the user meets)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("dask")
    monkeypatch.delattr(torch.nn.modules.batchnorm, "_BatchNorm")
    module = torch.nn.BatchNorm1d(3).train()
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError) as caught:
        module(interop.tensor(np.ones((4, 3)), backend="dask"))
    assert int(module.num_batches_tracked) == 1
    assert "interop relies on torch.nn.modules.batchnorm._BatchNorm.forward" in \
        caught.value.__notes__[0]
    assert "num_batches_tracked keeps the count" in caught.value.__notes__[0]


def _in_array_api_compat(source: str) -> dict:
    """Functions defined as if in array-api-compat's helpers module (their frames say so)."""
    namespace = {"__name__": "array_api_compat.common._helpers"}
    exec(textwrap.dedent(source), namespace)
    return namespace


def test_a_renamed_laziness_probe_is_reported(monkeypatch):
    """Simulated: array-api-compat renames the function that calls bool(). Its copy, imported,
    is probed at the first lazy value read: an InteropWarning, because is_lazy_array(a lazy
    tensor) would compute and answer False under the default dask_compute='allow'."""
    pytest.importorskip("dask")
    renamed = _in_array_api_compat("""
        def is_lazy(x):
            try:
                bool(x)
                return False
            except Exception:
                return True
        """)["is_lazy"]
    compat = types.SimpleNamespace(__name__="array_api_compat", is_lazy_array=renamed)
    monkeypatch.setattr(sys.modules["interop.config"], "UNCHECKED_PROBES", [compat])
    t = interop.tensor(np.ones(1), backend="dask")
    with pytest.warns(InteropWarning, match="array_api_compat.is_lazy_array calling bool"):
        float(t.sum())
    assert renamed(t) is False  # the compute the warning announces


def test_a_laziness_probe_reading_through_a_helper_is_recognised():
    """array-api-compat's is_lazy_array calling bool() in a helper of its package (a
    refactoring): still recognised, nothing computed, and the check at import is quiet."""
    pytest.importorskip("dask")
    import warnings

    from interop.config import check_laziness_probe
    found = _in_array_api_compat("""
        def _reads(x):
            return bool(x)
        def is_lazy_array(x):
            try:
                _reads(x)
                return False
            except Exception:
                return True
        """)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_laziness_probe(types.SimpleNamespace(__name__="array_api_compat",
                                                   is_lazy_array=found["is_lazy_array"]))
    with interop.config(dask_compute="raise"):
        assert found["is_lazy_array"](interop.tensor(np.ones(3), backend="dask")) is True


def test_value_read_warnings_name_the_users_line():
    """config.user_stacklevel walks out of interop's, NumPy's and Dask's frames."""
    pytest.importorskip("dask")
    t = interop.tensor(np.arange(3.0), backend="dask")
    with interop.config(dask_compute="warn"), pytest.warns(interop.DaskComputeWarning) as caught:
        float(t.sum())
        np.asarray(t)
    assert [w.filename for w in caught] == [__file__, __file__]


def test_an_installed_librarys_value_read_is_named(tmp_path, monkeypatch):
    """config._consumer names the installed library that read the values (a module under
    site-packages, simulated by a folder counted as one); outside it, the message names none:
    only the message changes, never the policy."""
    pytest.importorskip("dask")
    config_module = sys.modules["interop.config"]
    (tmp_path / "interop_reading_lib.py").write_text("def read(x):\n    return float(x.sum())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import interop_reading_lib
    t = interop.tensor(np.arange(3.0), backend="dask")
    for installed, named in (((str(tmp_path),), "interop_reading_lib.read reads the values"),
                             (("/nowhere",), "computes")):
        monkeypatch.setattr(config_module, "_INSTALLED", installed)
        with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError) as e:
            interop_reading_lib.read(t)
        assert str(e.value).startswith(named) or named in str(e.value), str(e.value)
    sys.modules.pop("interop_reading_lib", None)


# ------------------------------------------------------------------ torch's other insides
def test_torch_views_without_their_base_fail_at_load(monkeypatch, lookups):
    """``torch.Tensor._base`` is a view's base with this torch; a torch without it (simulated:
    a Tensor class without the name) fails the torch backend's load by name."""
    torch = pytest.importorskip("torch")
    from interop.backends.torch import backend as torch_backend
    from interop.upstream import UpstreamChangedError
    whole = torch.zeros(2)
    assert torch_backend.views_base()(whole[:1]) is whole
    assert torch_backend.views_base()(whole) is None
    monkeypatch.setattr(torch, "Tensor", type("Tensor", (), {}))
    lookups.cache_clear()
    with pytest.raises(UpstreamChangedError, match=r"torch.Tensor._base"):
        torch_backend.views_base()


def test_an_overload_without_its_schema_fails_by_name(monkeypatch):
    pytest.importorskip("torch")
    from interop.surfaces.torch_face import aten
    from interop.upstream import UpstreamChangedError
    monkeypatch.setattr(aten, "HANDLERS", {})
    moved = types.SimpleNamespace(_opname="add", _overloadname="Tensor")  # no _schema
    with pytest.raises(UpstreamChangedError, match=r"OpOverload attributes \['_schema'\]"):
        aten.handler_for(moved)


def test_torchs_tensor_is_known_by_its_handler_not_its_module(monkeypatch):
    """Simulated: torch moves Tensor.__torch_function__ to another module; torch's tensors and
    parameters stay data to interop (an override would take the call away from it)."""
    torch = pytest.importorskip("torch")
    from interop.core import torch_function
    monkeypatch.setattr(torch.Tensor.__torch_function__.__func__, "__module__", "torch._moved")
    for cls in (torch.Tensor, torch.nn.Parameter):
        assert torch_function.is_plain_value_type(cls) and not torch_function.overrides(cls)


# ------------------------------------------------------------------ Dask and NumPy behaviour
def test_a_dask_out_left_unwritten_fails_by_name(monkeypatch):
    pytest.importorskip("dask")
    import dask.array.core

    from interop.backends.dask import ufunc_methods
    from interop.upstream import UpstreamChangedError, private
    private.cache_clear()
    monkeypatch.setattr(dask.array.core, "handle_out", lambda out, result: None)
    try:
        with pytest.raises(UpstreamChangedError, match="handle_out writing out= in place"):
            ufunc_methods._write(dask.array.zeros(3, chunks=3), dask.array.ones(3, chunks=3))
    finally:
        private.cache_clear()


def test_an_array_refusing_interops_tags_fails_by_name(monkeypatch):
    """Dask's and Cubed's arrays carry interop's view links as instance attributes: a class
    that refuses them (``__slots__`` without ``__dict__``) fails by name, not deep inside."""
    from interop.backends import views
    from interop.upstream import UpstreamChangedError

    class Slotted:
        __slots__ = ()
    with pytest.raises(UpstreamChangedError, match=r"Slotted instances taking attributes"):
        views._set(Slotted(), views.BASE, None)


def test_numpy_functions_without_their_implementation_are_reported():
    from interop.surfaces.numpy_protocols import check_numpy_functions_recognised
    with pytest.warns(InteropWarning, match=r"numpy.mean._implementation"):
        check_numpy_functions_recognised(types.SimpleNamespace(mean=lambda x: x))
    check_numpy_functions_recognised(np)  # quiet with this NumPy


# ------------------------------------------------------------------ the import hook
class _Loader:
    """A loader serving several modules (as a zip importer does)."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.VALUE = 42


class _SlottedLoader:
    """A loader whose instances take no attributes."""

    __slots__ = ()
    create_module = _Loader.create_module
    exec_module = _Loader.exec_module


def _finder(loader, names):
    import importlib.util

    class Finder:
        def find_spec(self, name, path, target=None):
            return importlib.util.spec_from_loader(name, loader) if name in names else None
    return Finder()


def test_a_loader_refusing_the_hook_warns_and_the_import_goes_on(monkeypatch):
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, _finder(_SlottedLoader(), {"ip_slotted"})])
    seen = []
    after_import.when_imported("ip_slotted", seen.append)
    try:
        with pytest.warns(InteropWarning, match="loaders taking exec_module.*registers nothing "
                                                "with ip_slotted"):
            import ip_slotted
        assert ip_slotted.VALUE == 42 and seen == []
    finally:
        sys.modules.pop("ip_slotted", None)


def test_a_library_that_is_not_installed_is_not_a_changed_import_system(monkeypatch):
    """Asking for a library interop waits for that is not installed (``find_spec``, as
    tests and libraries ask whether torch is there) answers None, without a warning."""
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    after_import.when_imported("ip_not_installed", lambda m: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert importlib.util.find_spec("ip_not_installed") is None
        with pytest.raises(ModuleNotFoundError):
            import ip_not_installed  # noqa: F401


def test_a_loader_serving_several_modules_runs_the_hook_once(monkeypatch):
    loader = _Loader()
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, _finder(loader, {"ip_one", "ip_two"})])
    seen = []
    after_import.when_imported("ip_one", lambda m: seen.append(m.__name__))
    try:
        import ip_one
        import ip_two
        assert (ip_one.VALUE, ip_two.VALUE, seen) == (42, 42, ["ip_one"])
    finally:
        sys.modules.pop("ip_one", None)
        sys.modules.pop("ip_two", None)


# ------------------------------------------------------------------ ATen's underscored names
def _resolves(torch, name: str) -> bool:
    """``aten.<op>[.<overload>]`` or ``torch.<path>`` names something in this torch."""
    parts = name.split(".")
    found = torch.ops.aten if parts[0] == "aten" else torch
    for part in parts[1:]:
        found = getattr(found, part, None)
        if found is None:
            return False
    return True


def test_every_underscored_torch_name_interop_answers_is_this_torchs():
    """Records and the face's adapters answer ATen's and torch's underscored names
    (``aten._log_softmax``, ``aten._scaled_dot_product_flash_attention_for_cpu``,
    ``torch._chunk_cat``): a torch that renames one would leave its record unreached (the face
    then runs torch's decomposition or refuses by name), so each must still be torch's."""
    torch = pytest.importorskip("torch")
    from interop.ops import TORCH_NAMES
    from interop.surfaces.torch_face import adapters, attention
    names = {*TORCH_NAMES, *adapters.ADAPTERS, *attention.DECOMPOSITIONS}
    underscored = sorted(n for n in names if any(p.startswith("_") for p in n.split(".")[1:]))
    assert "aten._scaled_dot_product_flash_attention_for_cpu" in underscored
    assert [n for n in underscored if not _resolves(torch, n)] == []
