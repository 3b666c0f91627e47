"""Texture objects port as buffers: the sampler host code sets, the reads and filtering the
texture unit does, the texture's size from its tensor."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from porter.frontends.cuda import convert_cuda
from porter.frontends.cuda.textures import host_samplers, launch_arguments
from tests.conftest import ROOT, load_cuda_port

SAMPLE = ROOT / "tests" / "fresh" / "cuda_thread" / "texture_objects.cu"


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    return load_cuda_port(SAMPLE, tmp_path_factory.mktemp("textures"), "texture_port_tl")


def test_each_launch_finds_the_sampler_host_code_made_for_its_texture():
    module = convert_cuda(str(SAMPLE))
    samplers = {k.name: p.texture for k in module.kernels for p in k.params if getattr(p, "texture", None) is not None}
    # through a helper that returns the texture it made
    assert (samplers["rotate"].filter, samplers["rotate"].address[:2], samplers["rotate"].normalized) == \
        ("linear", ("wrap", "wrap"), True)
    assert (samplers["box_rows"].filter, samplers["box_rows"].address[:2]) == ("point", ("clamp", "clamp"))
    assert (samplers["lookup"].texel, samplers["lookup"].channels) == ("int32", 1)
    rgba = samplers["shade"]
    assert (rgba.read, rgba.texel, rgba.channels, rgba.address[:2]) == ("normalized", "uint8", 4, ("border", "border"))
    assert (samplers["mirrored"].address[:2], samplers["mirrored"].normalized) == (("mirror", "mirror"), True)
    assert all("host code (texture_objects.cu:" in k.note for k in module.kernels if k.name != "brighten")


@pytest.mark.parametrize("host, expected", [
    ("cudaTextureDesc d; memset(&d, 0, sizeof(d)); d.filterMode = cudaFilterModeLinear;\n"
     "cudaCreateTextureObject(&t, &r, &d, NULL);", ("linear", ("wrap", "wrap", "wrap"), False, "element")),
    ("cudaTextureDesc texDescr = {}; texDescr.addressMode[1] = cudaAddressModeBorder; "
     "texDescr.normalizedCoords = 1; cudaCreateTextureObject(&obj.tex, &res, &texDescr, 0);",
     ("point", ("wrap", "border", "wrap"), True, "element")),
    ("cudaChannelFormatDesc c = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);\n"
     "td.readMode = cudaReadModeNormalizedFloat; cudaCreateTextureObject(&t, &r, &td, nullptr);",
     ("point", ("wrap", "wrap", "wrap"), False, "normalized")),
])
def test_host_descriptors_are_read_in_several_spellings(host, expected):
    (sampler,) = [s for name, s in host_samplers("void f() {\n" + host + "\n}\n").items() if not name.endswith("()")]
    assert (sampler.filter, sampler.address, sampler.normalized, sampler.read) == expected


def test_channel_descriptions_give_the_texel_type_of_normalized_reads():
    text = "void f() { auto c = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);\n" \
           "d.readMode = cudaReadModeNormalizedFloat; cudaCreateTextureObject(&t, &r, &d, 0); }"
    assert (host_samplers(text)["t"].texel, host_samplers(text)["t"].channels) == ("uint8", 4)
    assert launch_arguments("k<<<g, b, 0, s>>>(out, f(a, b), tex);", "k", 2) == ["tex"]


def test_point_clamped_reads_and_integer_fetches_match_the_texture_unit(port):
    width, height, r = 40, 30, 3
    image = torch.rand(height, width)
    out = torch.zeros(height * width)
    port.box_rows[(1,), 64](out, width, height, r, image, target="c")  # the size from the tensor's shape
    a = image.numpy()
    ref = [[sum(a[y, min(max(i, 0), width - 1)] for i in range(x - r, x + r + 1)) / (2 * r + 1)
            for x in range(width)] for y in range(height)]
    np.testing.assert_allclose(out.numpy().reshape(height, width), np.array(ref), rtol=1e-5, atol=1e-5)
    keys = torch.tensor([-3, 0, 5, 63, 64, 200], dtype=torch.int32)
    table = torch.arange(64, dtype=torch.int32) * 3
    got = torch.zeros(6, dtype=torch.int32)
    port.lookup[(1,), 128](got, keys, 6, table, target="c")
    assert got.tolist() == [0, 0, 30, 378, 0, 0]  # outside linear memory a fetch reads 0


def test_bilinear_border_reads_of_normalized_bytes_match_the_texture_unit(port):
    width, height, scale = 32, 32, 1.3
    rgba = torch.randint(0, 256, (height, width, 4), dtype=torch.uint8)
    out = torch.zeros(height * width)
    port.shade[(2, 2), (16, 16)](out, width, height, scale, rgba, target="c")
    texels = rgba.numpy().astype(np.float64) / 255.0

    def texel(i, j):
        inside = 0 <= i < width and 0 <= j < height
        return texels[j, i] if inside else np.zeros(4)

    ref = np.zeros((height, width))
    for y in range(height):
        for x in range(width):
            u, v = x * scale - 0.5, y * scale - 0.5
            i, j = int(np.floor(u)), int(np.floor(v))
            a, b = np.round((u - i) * 256) / 256, np.round((v - j) * 256) / 256
            c = (1 - a) * (1 - b) * texel(i, j) + a * (1 - b) * texel(i + 1, j) + \
                (1 - a) * b * texel(i, j + 1) + a * b * texel(i + 1, j + 1)
            ref[y, x] = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] + c[3]
    np.testing.assert_allclose(out.numpy().reshape(height, width), ref, rtol=1e-4, atol=1e-4)


def test_a_texture_passed_to_a_device_function_is_read_mirrored_as_the_unit_does(port):
    width, height = 32, 32
    image = torch.rand(20, 24)
    out = torch.zeros(height * width)
    port.mirrored[(2, 2), (16, 16)](out, width, height, image, target="c")
    a = image.numpy().astype(np.float64)
    h, w = a.shape

    def mirror(c):
        period = np.floor(c)
        frac = c - period
        return 1 - frac if int(period) % 2 else frac

    ref = np.zeros((height, width))
    for y in range(height):
        for x in range(width):
            u = mirror(np.float32(2.5 * x / width - 0.7)) * w - 0.5
            v = mirror(np.float32(1.7 * y / height - 0.3)) * h - 0.5
            i, j = int(np.floor(u)), int(np.floor(v))
            fa, fb = np.round((u - i) * 256) / 256, np.round((v - j) * 256) / 256

            def t(ii, jj):
                return a[min(max(jj, 0), h - 1), min(max(ii, 0), w - 1)]
            ref[y, x] = (1 - fa) * (1 - fb) * t(i, j) + fa * (1 - fb) * t(i + 1, j) + \
                (1 - fa) * fb * t(i, j + 1) + fa * fb * t(i + 1, j + 1)
    np.testing.assert_allclose(out.numpy().reshape(height, width), ref, rtol=1e-3, atol=1e-3)


def test_surfaces_are_read_and_written_by_element_with_x_in_bytes(port):
    width, height = 20, 16
    image = torch.randint(0, 256, (height, width, 4), dtype=torch.uint8)
    out = torch.zeros(height, width, 4, dtype=torch.uint8)
    port.brighten[(2, 1), (16, 16)](image, out, width, height, target="c")
    a = image.numpy().astype(np.int32)
    mirrored = a[:, ::-1]
    expected = np.stack([a[..., 0] // 2 + mirrored[..., 0] // 2, a[..., 1], np.minimum(a[..., 2] + 40, 255),
                         np.full(a.shape[:2], 255)], axis=-1)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_a_texture_before_the_callers_grid_axes_keeps_the_wrapper_valid(tmp_path):
    # the texture's defaulted extents, then a grid axis no guard bounds (appended last): boxFilter
    # made the whole port invalid Python ("non-default argument follows default argument")
    src = tmp_path / "t.cu"
    src.write_text("__global__ void k(float *od, int w, cudaTextureObject_t tex) {\n"
                   "    int y = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    for (int x = 0; x < w; x++) od[y * w + x] = tex2D<float>(tex, x, y);\n}\n")
    module = load_cuda_port(src, tmp_path, "grid_after_texture_tl")
    import inspect

    parameters = list(inspect.signature(module._k).parameters)
    assert parameters[:3] == ["od", "w", "tex"] and "tex_width" in parameters
    with pytest.raises(TypeError, match="missing argument"):
        module._k(torch.zeros(4), 2, torch.zeros(2, 2), target="c")
