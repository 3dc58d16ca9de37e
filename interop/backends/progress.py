"""Progress on long computes: whether a bar is shown without being asked, and where it goes.

A compute that runs for more than ``AFTER_S`` seconds shows a progress bar in
a notebook (an IPython kernel) and in an interactive terminal, with no
argument; short computes show nothing.  Never by default where nobody watches:
a script whose output is not a terminal, anything run under CI (the ``CI``
environment variable, which CI services set) or under pytest
(``PYTEST_CURRENT_TEST``).  ``interop.config(progress=False)`` (or
``interop.config.set_default(progress=False)``) turns it off;
``progress=True`` shows it wherever the compute runs, CI included; an explicit
``t.compute(progress=True|False)`` wins over both.
"""

from __future__ import annotations

import os
import sys
from typing import IO, NamedTuple

from ..config import setting

AFTER_S = 1.0
"""How long a compute runs before its bar appears, when nobody asked for one."""

_OFF = ("", "0", "false", "no", "off")


class Choice(NamedTuple):
    """Whether to show a bar, after how many seconds, and on which stream."""

    show: bool
    after: float = 0.0
    out: IO[str] | None = None  # None: the library's own default (Dask's: stdout)


def unwatched() -> bool:
    """True under CI or pytest: nobody watches the output, and a log is no place for bars."""
    return os.environ.get("CI", "").strip().lower() not in _OFF or \
        "PYTEST_CURRENT_TEST" in os.environ


def in_kernel() -> bool:
    """True inside an IPython kernel (Jupyter, VS Code's notebooks), never importing IPython."""
    if "ipykernel" not in sys.modules or "IPython" not in sys.modules:
        return False
    from IPython import get_ipython
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _terminal() -> bool:
    stream = sys.stderr
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


def choose(asked: bool | None) -> Choice:
    """The bar for one compute: ``asked`` is the call's ``progress=`` (None: not given)."""
    if asked is not None:
        return Choice(bool(asked))
    wanted = setting("progress")
    if wanted is False or (wanted == "auto" and unwatched()):
        return Choice(False)
    if in_kernel():
        return Choice(True, AFTER_S, sys.stdout)
    if wanted is True or _terminal():
        return Choice(True, AFTER_S, sys.stderr)
    return Choice(False)
