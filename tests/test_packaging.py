"""What `pip install .` (not editable) ships: every porter package is listed in pyproject.toml, and
a wheel built from the tree holds every file the package reads at run time and verifies a port."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


def test_every_porter_package_is_installed():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^packages = \[(.*?)\]", text, re.DOTALL | re.MULTILINE).group(1)  # tomllib is 3.11+
    listed = set(re.findall(r'"([\w.]+)"', block))
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "porter").rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


# (folder of the tree, where the installed package has it): pyproject.toml's package-dir
_TREES = (("porter", "porter"), ("templates", "porter/templates"))


def _tree_files() -> dict:
    """{path in the wheel: path in the checkout} for every file of the package's folders
    (modules, shim and emulator headers, templates), caches and hidden files aside."""
    files = {}
    for top, installed in _TREES:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT / top)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc" and \
                    not any(part.startswith(".") for part in rel.parts):
                files[f"{installed}/{rel.as_posix()}"] = path.relative_to(ROOT)
    return files


def _run(args, **kw):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kw)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
    return result


# Thread-level atomics: the port lowers to CUDA C that includes tl_templates/cuda/atomic.h, which
# only the emulator's include/tl_templates/ provides (TP410 when the wheel lacks it).
ATOMIC_SAMPLE = ROOT / "samples/cuda/histogram_atomic.cu"


@pytest.mark.slow
def test_a_built_wheel_installed_in_a_fresh_venv_verifies_a_port(tmp_path):
    files = _tree_files()
    # the wheel is built from a copy of the tree: a build/ folder left in the checkout by an
    # earlier build would ship files pyproject.toml no longer lists
    src = tmp_path / "src"
    for rel in [*files.values(), Path("pyproject.toml"), Path("README.md")]:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    temp, work = tmp_path / "temp", tmp_path / "work"
    temp.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(TMPDIR=str(temp), PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1",
               TILEPORT_CACHE_DIR=str(tmp_path / "cache"), TILEPORT_WARM="0")  # no worker outlives the test

    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
          tmp_path / "dist", src], cwd=work, env=env)
    (wheel,) = (tmp_path / "dist").glob("tileport-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(set(files) - shipped)
    assert not missing, f"files of the tree the wheel lacks (pyproject.toml's package-data): {missing}"

    # torch, tilelang, triton and libclang come from this interpreter's environment; nothing downloads
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", venv], cwd=work, env=env)
    python, tileport = venv / "bin" / "python", venv / "bin" / "tileport"
    if sys.prefix != sys.base_prefix:  # run from a venv: --system-site-packages sees its base only
        purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       env=env).stdout.strip()
        import site

        Path(purelib, "outer-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", wheel], cwd=work, env=env)
    where = _run([python, "-c", "import porter; print(porter.__file__)"], cwd=work, env=env).stdout.strip()
    assert venv in Path(where).parents, f"porter imported from {where}, not the installed wheel"

    shutil.copy2(ATOMIC_SAMPLE, work / ATOMIC_SAMPLE.name)
    _run([tileport, "convert", ATOMIC_SAMPLE.name, "-o", "port_tl.py"], cwd=work, env=env)
    result = subprocess.run([str(tileport), "verify", ATOMIC_SAMPLE.name, "port_tl.py", "--format", "json",
                             "--no-compile-check"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads(result.stdout)
    assert result.returncode == 0, json.dumps(report, indent=1)[:4000] + result.stderr[-4000:]
    assert [k["verdict"] for k in report["kernels"]] == ["equivalent"]
    # the sample still exercises what it is here for
    built = [p for p in (tmp_path / "cache").rglob("*_port.cu") if "tl_templates/cuda/atomic.h" in p.read_text()]
    assert built, "the port's CUDA C no longer includes tl_templates/cuda/atomic.h: pick another sample"
    assert not list(temp.iterdir()), f"left in the temp folder: {sorted(p.name for p in temp.iterdir())}"
