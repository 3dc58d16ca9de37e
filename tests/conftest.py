"""Shared fixtures: every test that takes ``backend`` runs on numpy, dask and gpulike (NumPy
on a test device with a GPU's rules: a test that mixes host and device data fails here, not
first on a GPU), and on cupy where a CUDA GPU is present (skipped cleanly elsewhere)."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# The `backend` fixture only names a backend, so reusing it across examples is safe.
_QUIET = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
          HealthCheck.differing_executors]
_EXAMPLES = {"ci": 40, "dev": 15, "long": 2000}  # HYPOTHESIS_PROFILE picks one
# "ci" draws the same examples every run (derandomize): a run that passed passes again, so CI
# turns red for a change, never for a new draw. "dev" and "long" draw anew: that is where new
# failures are found (docs/errors.md, "Reliability checks").


def use_our_hypothesis_profile() -> None:
    """Register and load interop's profile.  torch's test utilities (imported with op_db)
    register a "dev" profile of their own and load theirs on import, and ``@given`` keeps the
    profile in force when a test is defined: so ours has names of its own and is loaded again
    right after that import (tests/test_torch_opdb.py) and after collection."""
    for name, examples in _EXAMPLES.items():
        settings.register_profile(f"interop-{name}", max_examples=examples, deadline=None,
                                  suppress_health_check=_QUIET, derandomize=name == "ci")
    settings.load_profile(f"interop-{os.environ.get('HYPOTHESIS_PROFILE', 'dev')}")


use_our_hypothesis_profile()


def pytest_collection_finish(session) -> None:
    use_our_hypothesis_profile()


def gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - any failure means no usable GPU
        return False


HAS_GPU = gpu_available()
# Not "strict": array-api-strict runs only the standard's functions; its devices are
# tested on their own (tests/test_devices_strict.py).
BACKENDS = ["numpy", "dask", "gpulike", pytest.param("cupy", marks=pytest.mark.gpu)]


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def installed(module: str) -> bool:
    """``module`` can be imported here (torch is at hand on some tested Pythons only)."""
    return importlib.util.find_spec(module) is not None


# The torch backend in a parametrisation: skipped, not failed, where torch is not installed.
TORCH_BACKEND = pytest.param("torch", marks=pytest.mark.skipif(
    not installed("torch"), reason="needs torch (pip install 'interop-tensor[torch]')"))


@pytest.fixture(scope="session", autouse=True)
def cubed_work_dir(tmp_path_factory):
    """Cubed writes each run's intermediate arrays under its ``spec.work_dir`` (the system's
    temporary directory by default) and leaves them there: the tests' go under pytest's
    temporary directories, which pytest prunes, and so do those of the processes the tests
    start (notebooks, the docs build), through Cubed's environment variable."""
    if not installed("cubed"):
        yield None
        return
    import cubed
    work_dir = str(tmp_path_factory.mktemp("cubed"))
    with pytest.MonkeyPatch.context() as patch, cubed.config.set({"spec.work_dir": work_dir}):
        patch.setenv("CUBED_SPEC__WORK_DIR", work_dir)
        yield work_dir


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def default_backend(backend):
    """Makes ``backend`` the default for creation functions, restored afterwards."""
    import interop
    old = interop.default_backend()
    interop.set_default_backend(backend)
    yield backend
    interop.set_default_backend(old)


def off_host(backend: str) -> bool:
    """``backend`` keeps its data off the host (CuPy on a GPU, gpulike on its test device):
    host arrays beside its tensors raise ``DeviceMismatchError``."""
    import interop
    return "cpu" not in interop.get_backend(backend).device_types


def home_device(backend: str) -> str:
    """Where ``backend`` puts a tensor made without ``device=``."""
    return {"cupy": "cuda:0", "gpulike": "gpulike:0"}.get(backend, "cpu")


def torch_device(backend: str) -> str:
    """Where the torch modules and tensors that meet ``backend``'s tensors go: CUDA beside
    CuPy, the CPU beside the host backends.  torch has no tensors on the gpulike test device,
    so a test that needs them is skipped there (on a GPU its cupy run covers the device)."""
    if backend == "gpulike":
        pytest.skip("torch has no tensors on the gpulike test device (the cupy run, on a GPU, "
                    "moves the torch side to CUDA)")
    return "cuda" if backend == "cupy" else "cpu"


def to_numpy(x):
    """Host values of an interop tensor, raw array or scalar (the test's view of a result)."""
    import interop
    if isinstance(x, interop.Tensor):
        x = x.raw
    if hasattr(x, "compute"):
        x = x.compute()
    if type(x).__module__.startswith("cupy") or type(x).__name__ == "DeviceArray":
        x = x.get()  # CuPy's arrays, and gpulike's, which stand for them
    if type(x).__module__.startswith("torch") and hasattr(x, "resolve_conj"):  # torch backend
        return interop.get_backend("torch").to_host(x)  # (bfloat16 too, by ml_dtypes)
    return np.asarray(x)


def two_worker_cluster(memory_limit: str = "1GiB", **config):
    """A real ``dask.distributed`` cluster: two worker processes of one thread and
    ``memory_limit`` each,
    yielding its client.  Work stealing is off, so where a task runs is the scheduler's
    placement by its data, not the machine's momentary load (CI's two cores are shared with
    the other test process); ``config`` adds Dask settings the scheduler and workers start
    with."""
    import logging

    import dask
    distributed = pytest.importorskip("distributed")
    with dask.config.set({"distributed.scheduler.work-stealing": False, **config}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
            scheduler_port=0, silence_logs=logging.ERROR, memory_limit=memory_limit)
    with cluster, distributed.Client(cluster, timeout="60s") as c:
        c.wait_for_workers(2, timeout=60)
        yield c


@pytest.fixture(scope="module")
def client():
    """One cluster per test module (tests that claim distribution run on it)."""
    yield from two_worker_cluster()


@pytest.fixture(scope="module")
def slow_network_client():
    """A cluster whose scheduler prices moving data as between machines (1 kB/s), so that a
    task with kilobytes of input runs where that input is, whatever the shared machine's
    momentary load: on two cores, the busier worker's queue otherwise outweighs moving a
    test's few kilobytes, and the scheduler rightly moves them."""
    yield from two_worker_cluster(**{"distributed.scheduler.bandwidth": "1kB"})
