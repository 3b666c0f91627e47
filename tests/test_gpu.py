"""On a machine with a CUDA GPU: the original and the port also run on it and agree."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("rel", ["samples/cuda/saxpy.cu", "samples/cuda/half_scale_bias.cu",
                                 "samples/triton/add.py", "samples/triton/scale_clamp_2d.py"])
def test_verify_runs_on_the_gpu(rel, tmp_path):
    port = tmp_path / "port_tl.py"
    cmd = [sys.executable, "-m", "porter.cli"]
    assert subprocess.run(cmd + ["convert", rel, "-o", str(port)], cwd=ROOT).returncode == 0
    result = subprocess.run(cmd + ["verify", rel, str(port), "--format", "json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["gpu"] is True
    devices = {c["device"] for k in report["kernels"] for c in k["cases"]}
    assert devices == {"cpu", "cuda"}
