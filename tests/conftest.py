"""Shared fixtures: keep compiler caches and temp files inside the test session's tmp area."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

_cache = Path(tempfile.gettempdir()) / "tileport-test-cache"
os.environ.setdefault("TILELANG_CACHE_DIR", str(_cache / "tilelang"))
os.environ.setdefault("TILEPORT_CACHE_DIR", str(_cache / "tileport"))


def gpu_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        return False


def pytest_collection_modifyitems(config, items):
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    # the warm workers the suite's children started (porter/verify/warm.py) end with it; only
    # the controlling process asks, so no pytest worker loses one while others still run
    if not hasattr(session.config, "workerinput"):
        from porter.verify import warm

        warm.shutdown_all()


def one_line(port: str) -> str:
    """A port with each statement on one line again (emit formats long ones with ruff): what
    tests that look for a statement's text, or mutate it, read. ruff joins them, at its widest
    line length and without the trailing commas it added when it split them."""
    import re
    import subprocess

    from ruff import find_ruff_bin

    text = subprocess.run([find_ruff_bin(), "format", "--isolated", "--line-length=320", "--config",
                           "format.skip-magic-trailing-comma=true", "-"], input=port, capture_output=True,
                          text=True, check=True).stdout
    end = text.find('"""', text.find('"""') + 3)  # the module docstring: its items unwrapped
    return re.sub(r"\n  (?=\S)", " ", text[:end]) + text[end:] if end > 0 else text


def load_cuda_port(source, directory, name: str = "port_tl"):
    """The module `tileport convert` writes for a CUDA file, written under `directory` and
    imported (tests that call a port's launchers)."""
    import importlib.util

    from porter.pipeline import print_port
    from porter.frontends.cuda import convert_cuda
    from porter.pipeline import raise_to_tiles

    port = Path(directory) / f"{name}.py"
    port.write_text(print_port(raise_to_tiles(convert_cuda(str(source))), str(source)))
    spec = importlib.util.spec_from_file_location(name, port)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
