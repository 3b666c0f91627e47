"""Texture and surface objects on the CPU emulator (cuda_emu/include/tp_texture.h).

Each test passes a texture as verify does, a cuda_exec.StructArg holding the object's bytes with
its `data` field pointing at a numpy array, and compares the fetches with a numpy reference
written from the CUDA C++ Programming Guide's appendix "Texture Fetching" (linear filtering with
alpha rounded to 8 fractional bits).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from porter.diagnostics import TileportError
from porter.verify.cuda_build import KernelSig, build
from porter.verify.cuda_exec import StructArg, run_kernel
from tests.test_cuda_emulator import _cache_dir  # noqa: F401 - its private build cache, as there

pytestmark = pytest.mark.slow  # compiles and runs kernels


# ----------------------------------------------------------------------------- the ABI

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
POINT, LINEAR = 0, 1

#: cudaTextureObject_t / cudaSurfaceObject_t as tp_texture.h lays them out (56 bytes)
OBJECT = np.dtype([("data", "<u8"), ("width", "<i4"), ("height", "<i4"), ("depth", "<i4"),
                   ("channels", "<i4"), ("texel", "<i4"), ("filter", "<i4"), ("address", "<i4", (3,)),
                   ("normalized", "<i4"), ("read_mode", "<i4")], align=True)
TEXEL_CODES = {np.dtype(t): i for i, t in enumerate(
    (np.float32, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.float16))}


def texture(texels: np.ndarray, dims: int, *, filter=POINT, address=(CLAMP,) * 3, normalized=False,
            read_mode=0) -> StructArg:
    """A texture object over `texels`, shaped ([depth,] [height,] width[, channels]): its bytes,
    and the array its `data` field (byte offset 0) points at."""
    extent = texels.shape[:dims][::-1]
    channels = texels.shape[dims] if texels.ndim > dims else 1
    obj = np.zeros((), OBJECT)
    obj["width"], obj["height"], obj["depth"] = (*extent, 1, 1)[:3]
    obj["channels"], obj["texel"] = channels, TEXEL_CODES[texels.dtype]
    obj["filter"], obj["address"] = filter, address
    obj["normalized"], obj["read_mode"] = int(normalized), read_mode
    return StructArg(obj.tobytes(), {0: texels})


assert OBJECT.itemsize == 56


# ----------------------------------------------------------------------------- the reference


def _axis(x, n, mode, normalized, linear):
    """Texel indices (-1: border) and weight of the second one, per coordinate, after the guide."""
    x = np.asarray(x, np.float32)
    if normalized:
        f = np.floor(x)
        if mode == WRAP:
            x = x - f
        elif mode == MIRROR:
            x = np.where(np.fmod(f, 2) != 0, 1 - (x - f), x - f).astype(np.float32)
        x = x * np.float32(n)
    elif mode != BORDER:
        mode = CLAMP

    def address(i):
        if mode == WRAP:
            return i % n
        if mode == MIRROR:
            m = i % (2 * n)
            return np.where(m < n, m, 2 * n - 1 - m)
        if mode == BORDER:
            return np.where((i >= 0) & (i < n), i, -1)
        return np.clip(i, 0, n - 1)

    if not linear:
        i = np.floor(x).astype(np.int64)
        return address(i), address(i), np.zeros_like(x)
    xb = x - np.float32(0.5)
    i = np.floor(xb)
    alpha = np.rint((xb - i) * 256) / 256  # frac in 8-bit fixed point, rounded to even
    i = i.astype(np.int64)
    return address(i), address(i + 1), alpha.astype(np.float32)


def _texel(tex: np.ndarray, idx: list) -> np.ndarray:
    """tex[z, y, x] (channels last, float64), 0 where an index is -1."""
    inside = np.all([i >= 0 for i in idx], axis=0)
    safe = [np.where(inside, i, 0) for i in idx]
    v = tex[tuple(safe[::-1])].astype(np.float64)
    return np.where(inside[..., None], v, 0.0)


def reference(tex, coords, *, filter=POINT, address=(CLAMP,) * 3, normalized=False):
    """tex{1,2,3}D over a texel array shaped (..., channels): one row of results per coordinate."""
    dims = len(coords)
    axes = [_axis(c, tex.shape[dims - 1 - d], address[d], normalized, filter == LINEAR)
            for d, c in enumerate(coords)]
    if filter == POINT:
        return _texel(tex, [a[0] for a in axes])
    out = 0.0
    for corner in np.ndindex(*(2,) * dims):
        w = np.prod([a[2] if c else 1 - a[2] for a, c in zip(axes, corner)], axis=0)
        out = out + w[:, None] * _texel(tex, [a[1] if c else a[0] for a, c in zip(axes, corner)])
    return out


# ----------------------------------------------------------------------------- kernels

SRC = """\
__global__ void fetch1d(cudaTextureObject_t tex, float *out, float *out2, int n) {
  int i = threadIdx.x;
  if (i < n) {
    out[i] = tex1Dfetch<float>(tex, i - 3);
    tex1Dfetch(&out2[i], tex, i - 3);
  }
}
__global__ void sample1d(cudaTextureObject_t tex, const float *xs, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tex1D(&out[i], tex, xs[i]);
}
__global__ void sample2d(cudaTextureObject_t tex, const float *xs, const float *ys, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, xs[i], ys[i]);
}
__global__ void sample2d_lod(cudaTextureObject_t tex, const float *xs, const float *ys, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tex2D(&out[i], tex, xs[i], ys[i]);
    out[i] = 0.5f * (out[i] + tex2DLod<float>(tex, xs[i], ys[i], 2.0f));  /* one level: the same */
  }
}
__global__ void sample2d_rgba(cudaTextureObject_t tex, const float *xs, const float *ys, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(tex, xs[i], ys[i]);
}
__global__ void sample3d(cudaTextureObject_t tex, const float *xs, const float *ys, const float *zs,
                         float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(tex, xs[i], ys[i], zs[i]);
}
__global__ void fetch_ints(cudaTextureObject_t tex, int2 *pairs, int *firsts, int n) {
  int i = threadIdx.x;
  if (i < n) {
    pairs[i] = tex1Dfetch<int2>(tex, i);
    firsts[i] = tex1Dfetch<int>(tex, i);
  }
}
__global__ void brighten(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, uchar4 *back, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y >= h) return;
  uchar4 p = surf2Dread<uchar4>(src, x * 4, y);  /* x == w: outside, reads 0 */
  surf2Dwrite(make_uchar4(p.x + 1, p.y + 2, p.z + 3, 255), dst, x * 4, y);  /* x == w: dropped */
  uchar4 q;
  surf2Dread(&q, dst, x * 4, y);
  back[y * (w + 1) + x] = q;
}
"""


def _run(tmp_path: Path, name: str, types: list[str], grid, block, args):
    path = tmp_path / "tex.cu"
    if not path.exists():
        path.write_text(SRC)
    return run_kernel(path, KernelSig(name, name, types), grid, block, 0, args)


SAMPLE2D = ["cudaTextureObject_t", "const float *", "const float *", "float *", "int"]


def _sample2d(tmp_path, tex: StructArg, xs, ys, kernel="sample2d"):
    n = xs.size
    out = _run(tmp_path, kernel, SAMPLE2D, (n + 63) // 64, 64, [tex, xs, ys, np.zeros(n, np.float32), n])
    return out[3]


def _grid(xs, ys):
    gx, gy = np.meshgrid(np.asarray(xs, np.float32), np.asarray(ys, np.float32))
    return gx.ravel(), gy.ravel()


# ----------------------------------------------------------------------------- tests


def test_tex1dfetch_reads_linear_memory_and_zero_outside(tmp_path):
    texels = np.arange(10, dtype=np.float32) * 1.5 + 1
    out = _run(tmp_path, "fetch1d", ["cudaTextureObject_t", "float *", "float *", "int"], 1, 32,
               [texture(texels, 1), np.zeros(16, np.float32), np.zeros(16, np.float32), 16])
    want = np.array([texels[i - 3] if 0 <= i - 3 < 10 else 0 for i in range(16)], np.float32)
    np.testing.assert_array_equal(out[1], want)
    np.testing.assert_array_equal(out[2], want)
    np.testing.assert_array_equal(out[0].pointers[0], texels)  # the texels come back untouched


def test_tex2d_point_clamp_unnormalized_inside_and_outside(tmp_path):
    rng = np.random.default_rng(1)
    texels = rng.random((5, 7), dtype=np.float32)  # height 5, width 7
    xs, ys = _grid(np.arange(-2.75, 9.5, 0.5), np.arange(-2.25, 7.5, 0.5))
    got = _sample2d(tmp_path, texture(texels, 2), xs, ys)
    want = reference(texels[..., None], [xs, ys])[:, 0]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_sample2d(tmp_path, texture(texels, 2), xs, ys, "sample2d_lod"), want)
    # wrap and mirror act as clamp on unnormalized coordinates
    got = _sample2d(tmp_path, texture(texels, 2, address=(WRAP, MIRROR, CLAMP)), xs, ys)
    np.testing.assert_array_equal(got, want)


def test_tex2d_linear_clamp_is_bilinear_with_8bit_weights(tmp_path):
    rng = np.random.default_rng(2)
    texels = rng.random((6, 9), dtype=np.float32)
    xs = rng.uniform(-1.5, 10.5, 600).astype(np.float32)
    ys = rng.uniform(-1.5, 7.5, 600).astype(np.float32)
    got = _sample2d(tmp_path, texture(texels, 2, filter=LINEAR), xs, ys)
    want = reference(texels[..., None], [xs, ys], filter=LINEAR)[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # texel centres read the texel itself
    cx, cy = _grid(np.arange(9) + 0.5, np.arange(6) + 0.5)
    got = _sample2d(tmp_path, texture(texels, 2, filter=LINEAR), cx, cy)
    np.testing.assert_array_equal(got, texels.ravel())


def test_tex2d_normalized_wrap_linear(tmp_path):
    rng = np.random.default_rng(3)
    texels = rng.random((4, 8), dtype=np.float32)
    xs = rng.uniform(-1.5, 2.5, 500).astype(np.float32)
    ys = rng.uniform(-1.5, 2.5, 500).astype(np.float32)
    tex = texture(texels, 2, filter=LINEAR, address=(WRAP, WRAP, WRAP), normalized=True)
    got = _sample2d(tmp_path, tex, xs, ys)
    want = reference(texels[..., None], [xs, ys], filter=LINEAR, address=(WRAP,) * 3, normalized=True)[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # wrapping blends the last column with the first at the seam
    seam = _sample2d(tmp_path, tex, np.array([0.0, 1.0], np.float32), np.array([0.125, 0.125], np.float32))
    np.testing.assert_allclose(seam, (texels[0, 0] + texels[0, 7]) / 2, rtol=1e-6)


def test_tex1d_normalized_linear_mirror_and_clamp(tmp_path):
    rng = np.random.default_rng(8)
    texels = rng.random(7, dtype=np.float32)
    xs = np.concatenate([rng.uniform(-2.2, 3.2, 300), [0.0, 1.0, 1 / 14, 13 / 14, -1 / 14, 15 / 14]]).astype(np.float32)
    types = ["cudaTextureObject_t", "const float *", "float *", "int"]
    for mode in (MIRROR, CLAMP, WRAP):
        tex = texture(texels, 1, filter=LINEAR, address=(mode,) * 3, normalized=True)
        out = _run(tmp_path, "sample1d", types, 5, 64, [tex, xs, np.zeros(xs.size, np.float32), xs.size])
        want = reference(texels[:, None], [xs], filter=LINEAR, address=(mode,) * 3, normalized=True)[:, 0]
        np.testing.assert_allclose(out[2], want, rtol=1e-5, atol=1e-6, err_msg=f"address mode {mode}")
    # mirror and clamp repeat the edge texel past the edge; wrap blends it with the other edge
    edge = {m: _run(tmp_path, "sample1d", types, 1, 32,
                    [texture(texels, 1, filter=LINEAR, address=(m,) * 3, normalized=True),
                     np.array([0.0, 1.0], np.float32), np.zeros(2, np.float32), 2])[2] for m in (MIRROR, CLAMP, WRAP)}
    np.testing.assert_allclose(edge[MIRROR], texels[[0, 6]], rtol=1e-6)
    np.testing.assert_allclose(edge[CLAMP], texels[[0, 6]], rtol=1e-6)
    np.testing.assert_allclose(edge[WRAP], (texels[0] + texels[6]) / 2, rtol=1e-6)


def test_border_reads_zero_outside(tmp_path):
    rng = np.random.default_rng(4)
    texels = rng.random((5, 6), dtype=np.float32) + 1  # never 0 inside
    xs, ys = _grid(np.arange(-1.8, 8, 0.4), np.arange(-1.6, 7, 0.4))
    border = (BORDER,) * 3
    for filt in (POINT, LINEAR):
        got = _sample2d(tmp_path, texture(texels, 2, filter=filt, address=border), xs, ys)
        want = reference(texels[..., None], [xs, ys], filter=filt, address=border)[:, 0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        outside = (xs < -0.5) | (xs > 6.5) | (ys < -0.5) | (ys > 5.5) if filt else \
            (xs < 0) | (xs >= 6) | (ys < 0) | (ys >= 5)
        assert outside.any() and np.all(got[outside] == 0)
    # normalized coordinates too
    got = _sample2d(tmp_path, texture(texels, 2, address=border, normalized=True), xs / 6, ys / 5)
    want = reference(texels[..., None], [xs / 6, ys / 5], address=border, normalized=True)[:, 0]
    np.testing.assert_array_equal(got, want)


def test_uchar4_texels_read_as_normalized_float4(tmp_path):
    rng = np.random.default_rng(5)
    texels = rng.integers(0, 256, (4, 5, 4), dtype=np.uint8)
    xs = rng.uniform(-0.5, 5.5, 200).astype(np.float32)
    ys = rng.uniform(-0.5, 4.5, 200).astype(np.float32)
    types = ["cudaTextureObject_t", "const float *", "const float *", "float4 *", "int"]
    for filt in (POINT, LINEAR):
        tex = texture(texels, 2, filter=filt, read_mode=1)
        out = _run(tmp_path, "sample2d_rgba", types, 4, 64, [tex, xs, ys, np.zeros((200, 4), np.float32), 200])
        want = reference(texels / 255.0, [xs, ys], filter=filt)
        np.testing.assert_allclose(out[3], want, rtol=1e-5, atol=1e-6)
    # signed: v / 127, clamped at -1
    s8 = np.array([[[-128, -127, 0, 127]]], np.int8)
    out = _run(tmp_path, "sample2d_rgba", types, 1, 32,
               [texture(s8, 2, read_mode=1), np.zeros(1, np.float32), np.zeros(1, np.float32),
                np.zeros((1, 4), np.float32), 1])
    np.testing.assert_allclose(out[3][0], [-1, -1, 0, 1])


def test_tex3d_point_normalized_with_a_mode_per_dimension(tmp_path):
    rng = np.random.default_rng(6)
    texels = rng.random((3, 4, 5), dtype=np.float32)  # depth 3, height 4, width 5
    n = 400
    xs, ys, zs = (rng.uniform(-1.3, 2.3, n).astype(np.float32) for _ in range(3))
    modes = (WRAP, CLAMP, MIRROR)
    out = _run(tmp_path, "sample3d",
               ["cudaTextureObject_t", "const float *", "const float *", "const float *", "float *", "int"],
               (n + 63) // 64, 64,
               [texture(texels, 3, address=modes, normalized=True), xs, ys, zs, np.zeros(n, np.float32), n])
    want = reference(texels[..., None], [xs, ys, zs], address=modes, normalized=True)[:, 0]
    np.testing.assert_array_equal(out[4], want)
    # unnormalized, clamped
    xs3, ys3, zs3 = xs * 5, ys * 4, zs * 3
    out = _run(tmp_path, "sample3d",
               ["cudaTextureObject_t", "const float *", "const float *", "const float *", "float *", "int"],
               (n + 63) // 64, 64, [texture(texels, 3), xs3, ys3, zs3, np.zeros(n, np.float32), n])
    np.testing.assert_array_equal(out[4], reference(texels[..., None], [xs3, ys3, zs3])[:, 0])


def test_element_type_reads_of_two_int_channels(tmp_path):
    texels = np.arange(-8, 8, dtype=np.int32).reshape(8, 2)
    out = _run(tmp_path, "fetch_ints", ["cudaTextureObject_t", "int2 *", "int *", "int"], 1, 32,
               [texture(texels, 1), np.zeros((8, 2), np.int32), np.zeros(8, np.int32), 8])
    np.testing.assert_array_equal(out[1], texels)
    np.testing.assert_array_equal(out[2], texels[:, 0])  # a scalar result reads the first component


def test_misuse_stops_the_launch(tmp_path):
    texels = np.zeros((2, 2), np.uint8)
    xs = np.zeros(1, np.float32)
    with pytest.raises(TileportError) as e:
        _sample2d(tmp_path, texture(texels, 2, filter=LINEAR), xs, xs)
    assert e.value.diagnostic.code == "TP414" and "linear filtering" in e.value.diagnostic.message
    # an empty object (host code's `tex = 0`, or a field the packer missed) stops it too
    with pytest.raises(TileportError) as e:
        _sample2d(tmp_path, StructArg(np.zeros((), OBJECT).tobytes(), {}), xs, xs)
    assert e.value.diagnostic.code == "TP414" and "empty texture object" in e.value.diagnostic.message


def test_surf2d_write_then_read_round_trip_uchar4(tmp_path):
    rng = np.random.default_rng(7)
    h, w = 3, 5
    src_px = rng.integers(0, 250, (h, w, 4), dtype=np.uint8)
    dst_px = np.zeros((h, w, 4), np.uint8)
    out = _run(tmp_path, "brighten",
               ["cudaSurfaceObject_t", "cudaSurfaceObject_t", "uchar4 *", "int", "int"], (1, 1), (w + 1, h),
               [texture(src_px, 2), texture(dst_px, 2), np.zeros((h, w + 1, 4), np.uint8), w, h])
    want = src_px + np.array([1, 2, 3, 0], np.uint8)
    want[..., 3] = 255
    np.testing.assert_array_equal(out[1].pointers[0], want)  # the surface's memory
    np.testing.assert_array_equal(out[2][:, :w], want)  # what the kernel read back
    np.testing.assert_array_equal(out[2][:, w], 0)  # outside: reads 0, the write dropped
    np.testing.assert_array_equal(out[0].pointers[0], src_px)


HOST = """\
#include <cuda_runtime.h>
#include <cstring>
cudaTextureObject_t g_tex;   // namespace-scope objects survive the cut of host code
cudaSurfaceObject_t g_surf = 0;

__global__ void blur(cudaTextureObject_t tex, float *out, int w) {
  int x = threadIdx.x;
  out[x] = tex2D<float>(tex, x + 0.5f, 0.5f) + tex2D<float>(g_tex, x, 0);
}

int main() {
  const int w = 8, h = 4;
  float host[w * h] = {};
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  cudaMallocArray(&array, &desc, w, h);
  cudaMemcpy2DToArray(array, 0, 0, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
  cudaResourceDesc res;
  memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof(td));
  td.addressMode[0] = cudaAddressModeWrap;
  td.addressMode[1] = cudaAddressModeMirror;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex = 0;
  memset(&tex, 0, sizeof(tex));
  cudaCreateTextureObject(&tex, &res, &td, NULL);
  if (tex == 0 || g_surf != 0) return 1;
  cudaCreateSurfaceObject(&g_surf, &res);
  float *d;
  cudaMalloc(&d, w * sizeof(float));
  blur<<<1, w>>>(tex, d, w);
  cudaDestroyTextureObject(tex);
  cudaDestroySurfaceObject(g_surf);
  cudaFreeArray(array);
  return 0;
}
"""


def test_host_texture_api_compiles(tmp_path):
    path = tmp_path / "host.cu"
    path.write_text(HOST)
    assert build(path, [KernelSig("blur", "blur", ["cudaTextureObject_t", "float *", "int"])]).exists()
