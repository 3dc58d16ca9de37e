"""Progress on long computes: shown after a second in notebooks and terminals with no argument,
silent under CI and tests, off with a setting; real Dask computes, real terminals (a pty)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import interop

pytest.importorskip("dask")

ROOT = Path(__file__).resolve().parent.parent


def _slow(seconds: float) -> interop.Tensor:
    """A Dask tensor whose compute runs ``seconds`` (one sleeping chunk, then a sum)."""
    def sleep(block):
        time.sleep(seconds)
        return block
    return interop.ones((4, 4), backend="dask", chunks=(4, 4)).map_blocks(sleep).sum()


def test_silent_by_default_under_pytest(capsys):
    """pytest sets PYTEST_CURRENT_TEST: nobody watches a test's output, so no bar."""
    assert "PYTEST_CURRENT_TEST" in os.environ
    assert _slow(1.2).compute().item() == 16.0
    assert float(_slow(1.2)) == 16.0  # an implicit read: the same rule
    assert capsys.readouterr() == ("", "")


def test_progress_setting_shows_long_computes_only(capsys):
    """``progress=True`` shows a compute that runs over a second wherever it runs (here on
    stderr, as a terminal bar), and nothing for a short one."""
    with interop.config(progress=True):
        assert _slow(0.0).compute().item() == 16.0
        assert capsys.readouterr() == ("", "")
        assert _slow(1.3).compute().item() == 16.0
        out, err = capsys.readouterr()
        assert out == "" and "100% Completed" in err
        assert float(_slow(1.3)) == 16.0
        assert "100% Completed" in capsys.readouterr().err
        assert _slow(1.3).compute(progress=False).item() == 16.0  # the call wins
        assert capsys.readouterr() == ("", "")


def test_asking_shows_at_once_and_false_turns_it_off(capsys):
    assert _slow(0.0).compute(progress=True).item() == 16.0
    assert "100% Completed" in capsys.readouterr().out  # Dask's own bar, as asked
    with interop.config(progress=False):
        assert _slow(0.0).compute(progress=True).item() == 16.0
    assert "100% Completed" in capsys.readouterr().out


def test_progress_setting_is_validated():
    with pytest.raises(ValueError, match="progress"):
        interop.config(progress="sometimes")


_SCRIPT = """
import time, interop
{setup}
def sleep(block):
    time.sleep(1.3)
    return block
t = interop.ones((4, 4), backend="dask", chunks=(4, 4)).map_blocks(sleep).sum()
print("result", t.compute().item())
"""


def _run_script(setup: str = "", *, terminal: bool = True, **env: str) -> tuple[str, str]:
    """A script run as a user runs it: in a terminal (stderr a real pty) or not, without the
    test's own CI and pytest variables unless given.  Its stdout and stderr."""
    import pty
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_CURRENT_TEST")}
    environ.update(env, PYTHONPATH=str(ROOT))
    leader, follower = pty.openpty() if terminal else (None, None)
    try:
        done = subprocess.run([sys.executable, "-c", _SCRIPT.format(setup=setup)], env=environ,
                              stdout=subprocess.PIPE, timeout=120, text=True,
                              stderr=follower if terminal else subprocess.PIPE)
        if not terminal:
            return done.stdout, done.stderr
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: all read
                break
            if not data:
                break
            chunks.append(data)
        return done.stdout, b"".join(chunks).decode(errors="replace")
    finally:
        if terminal:
            os.close(leader)


@pytest.mark.slow
def test_a_script_in_a_terminal_shows_progress_without_being_asked():
    out, err = _run_script()
    assert out == "result 16.0\n" and "100% Completed" in err and "\r" in err


@pytest.mark.slow
@pytest.mark.parametrize("how", ["CI", "setting", "not a terminal"])
def test_silent_under_ci_with_the_setting_off_and_without_a_terminal(how):
    if how == "CI":
        out, err = _run_script(CI="true")
    elif how == "setting":
        out, err = _run_script("interop.config.set_default(progress=False)")
    else:
        out, err = _run_script(terminal=False)
    assert out == "result 16.0\n" and "Completed" not in err, err


@pytest.mark.slow
def test_with_a_distributed_client_a_long_compute_shows_its_bar(capsys):
    """On a cluster: not asked, a bar only if the graph still runs after a second."""
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=":0"), interop.config(progress=True):
        assert _slow(0.0).compute().item() == 16.0
        assert "Completed" not in capsys.readouterr().out
        assert _slow(1.5).compute().item() == 16.0
        assert "100% Completed" in capsys.readouterr().out
