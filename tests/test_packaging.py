"""The package as an index and a user see it: the distribution's own name in every install
line, the metadata pip reads (the version in one place, URLs, the tested Pythons as
classifiers), the license shipped, and a changelog that knows the version. The artifacts
themselves are built, checked and installed by scripts/test_release.sh."""

from __future__ import annotations

import importlib.metadata as md
import pathlib
import re
import tomllib

import interop

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
DIST = "interop-tensor"


def _tested_pythons() -> set[str]:
    """The Pythons CI runs: .venv's (3.11, where torch's CPU wheel is) and the ones
    scripts/test_pythons.sh runs by default."""
    script = (ROOT / "scripts" / "test_pythons.sh").read_text()
    defaults = re.search(r"\|\| set -- ([0-9. ]+)", script)[1].split()
    return {"3.11", *defaults}


def test_the_installed_metadata_is_pyprojects():
    meta = md.metadata(DIST)
    assert PROJECT["name"] == DIST and meta["Name"] == DIST
    assert interop.__version__ == meta["Version"] == PROJECT["version"]
    assert meta["License-Expression"] == "BSD-3-Clause"
    urls = {entry.split(",")[0] for entry in meta.get_all("Project-URL")}
    assert urls >= {"Homepage", "Documentation", "Source", "Issues", "Changelog"}, urls


def test_the_classifiers_and_requires_python_name_the_tested_pythons():
    tested = _tested_pythons()
    prefix = "Programming Language :: Python :: "
    declared = {c.removeprefix(prefix) for c in PROJECT["classifiers"]
                if re.fullmatch(re.escape(prefix) + r"3\.\d+", c)}
    assert declared == tested, (declared, tested)
    assert PROJECT["requires-python"] == f">={min(tested, key=lambda v: tuple(map(int, v.split('.'))))}"


def test_the_license_file_is_the_declared_one():
    assert PROJECT["license"] == "BSD-3-Clause" and PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")


def test_the_changelog_knows_the_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in text
    assert f"## [{PROJECT['version']}]" in text


# `pip install interop` or `interop[extra]` installs Illumina's InterOp, not this project.
FOREIGN_INSTALL = re.compile(r"pip install\s+['\"]?interop(?![-\w])|\binterop\[")


def test_every_install_line_names_this_distribution():
    places = [ROOT / "README.md", ROOT / "pyproject.toml", *ROOT.glob("docs/**/*.md"),
              *ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("scripts/*"), *ROOT.glob("examples/*"),
              *ROOT.glob("interop/**/*.py")]
    wrong = [f"{p.relative_to(ROOT)}: {m[0]}" for p in places if p.is_file()
             for m in FOREIGN_INSTALL.finditer(p.read_text(errors="replace"))]
    assert not wrong, wrong
