"""Where data lives: ``Device("cpu")``, ``Device("cuda", 0)``, and the backends' names.

The ground floor, beside dtypes and errors: backends, tensors and the public API all
speak of devices, and a device needs nothing but the names of the backends.
"""

from __future__ import annotations

from typing import Any

from .dtypes import TORCH_STAND_INS, call_with_torch_objects
from .errors import DeviceMismatchError, unknown_name

# Device types, the backend that holds data there, and the index a bare type means.
# "strict:N" is array-api-strict's Device("deviceN"): a second device without a GPU,
# so the device logic below is exercised on every CI run (tests/test_devices_strict.py).
# "gpulike:0" is the gpulike test backend's device: NumPy under a GPU's rules, so the tests
# parametrised over backends meet those rules in CI (backends/gpulike/).
BACKEND_NAMES = ("numpy", "cupy", "dask", "strict", "torch", "jax", "cubed", "gpulike")
# torch's devices of its own ("meta": shapes and dtypes without data; Apple's "mps"; Intel's
# "xpu") are torch tensors' only, so a torch-backed tensor there has a device, and a repr.
DEVICE_TYPES: dict[str, tuple[str, int | None]] = {
    "cpu": ("numpy", None), "cuda": ("cupy", 0), "strict": ("strict", 1),
    "gpulike": ("gpulike", 0), "meta": ("torch", None), "mps": ("torch", 0), "xpu": ("torch", 0)}
TORCH_DEVICE_TYPES = ("cpu", "cuda", "meta", "mps", "xpu")


class Device(str):
    """Where data lives: ``Device("cpu")``, ``Device("cuda", 0)`` (or ``Device("strict", 1)``).

    A ``str`` whose value is the torch spelling (``"cpu"``, ``"cuda:0"``): torch's argument
    parser takes it where it takes a device string, so torch code such as
    ``torch.zeros(n, device=x.device)`` (in ``nn.LSTM.forward``) runs, and NumPy's
    ``device="cpu"`` takes a CPU one.  Compares equal to the strings torch uses (``"cpu"``,
    ``"cuda"``, ``"cuda:0"``), so code written for torch devices keeps working.

    ``backend`` names the backend of the arrays there when it is not the one
    the device type means: a Dask tensor's device is its chunks' device
    (``== "cpu"``) with ``backend="dask"``, so ``xp.zeros(n, device=x.device)``
    makes a Dask array, as Array API consumers expect of ``x.device``.
    """

    type: str
    index: int | None  # type: ignore[assignment]  # torch.device's index, over str.index
    backend: str | None

    def __new__(cls, type: Any, index: int | None = None, *,  # noqa: A002
                backend: str | None = None) -> Device:
        if isinstance(type, Device):
            backend = backend or type.backend
            type, index = type.type, type.index if index is None else index
        elif not isinstance(type, str) and hasattr(type, "type") and hasattr(type, "index"):
            type, index = type.type, type.index if index is None else index  # a torch.device
        elif ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in DEVICE_TYPES:
            hint = (f"{type!r} is a backend: pass backend={type!r}" if type in BACKEND_NAMES
                    else "did you mean 'cuda'" if type == "gpu" else "")
            raise unknown_name("device type", type, ("cpu", "cuda", "cuda:N", "strict:N"), hint)
        default = DEVICE_TYPES[type][1]
        index = None if default is None else default if index is None else index
        self = super().__new__(cls, type if index is None else f"{type}:{index}")
        self.type, self.index, self.backend = type, index, backend
        return self

    def __reduce__(self) -> tuple:
        return _device, (self.type, self.index, self.backend)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = Device(other)
            except ValueError:
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        backend = "" if self.backend is None else f", backend='{self.backend}'"
        return f"device(type='{self.type}'{index}{backend})"

    def to_torch(self) -> Any:
        """The torch.device of the same name (torch is loaded: only torch code asks)."""
        if self.type not in TORCH_DEVICE_TYPES:
            raise DeviceMismatchError(
                f"torch has no device {self.memory} (a test device of interop's): torch code "
                "that makes tensors on it (torch.zeros(n, device=t.device), a module's "
                "initial states) needs a tensor on the cpu or a GPU; move it with t.cpu()")
        import torch
        return torch.device(str(self.memory))

    @classmethod
    def __torch_function__(cls, func: Any, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        """torch's parser sent the call here for a device in a torch slot
        (``torch.ones(3, device=t.device)``): run ``func`` with torch's device in its place."""
        return call_with_torch_objects(func, args, kwargs)

    @property
    def memory(self) -> Device:
        """The device itself, without a backend: where the (chunks') memory is."""
        return self if self.backend is None else Device(self.type, self.index)


def _device(type: str, index: int | None, backend: str | None) -> Device:  # noqa: A002
    """Device from its parts (unpickling)."""
    return Device(type, index, backend=backend)


TORCH_STAND_INS.add(Device)
CPU = Device("cpu")
