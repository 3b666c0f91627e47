// Kernels that read through texture objects; how each texture samples is set by the host code
// below (cudaTextureDesc), which tileport reads for the variable each launch passes.
#include <cuda_runtime.h>

// rotate an image: normalized coordinates, wrapped, bilinear (simpleTexture's transform)
__global__ void rotate(float *out, int width, int height, float theta, cudaTextureObject_t tex) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float u = (float)x / width - 0.5f, v = (float)y / height - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
    out[y * width + x] = tex2D<float>(tex, tu, tv);
}

// a running box filter along rows: texel coordinates, clamped at the edges, point sampled
__global__ void box_rows(float *out, int width, int height, int r, cudaTextureObject_t tex) {
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height) return;
    float t = 0.0f;
    for (int x = -r; x <= r; x++) t += tex2D<float>(tex, x, y);
    for (int x = 0; x < width; x++) {
        out[y * width + x] = t / (2 * r + 1);
        t += tex2D<float>(tex, x + r + 1, y) - tex2D<float>(tex, x - r, y);
    }
}

// a table lookup through linear memory (marchingCubes' edge tables)
__global__ void lookup(int *out, const int *keys, int n, cudaTextureObject_t table) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(table, keys[i]) * 2;
}

// 8-bit RGBA texels read as floats in [0, 1], filtered, outside the image the border's zero
__global__ void shade(float *out, int width, int height, float scale, cudaTextureObject_t rgba) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float4 c = tex2D<float4>(rgba, x * scale, y * scale);
        out[y * width + x] = 0.299f * c.x + 0.587f * c.y + 0.114f * c.z + c.w;
    }
}

// a device helper takes the texture (`const cudaTextureObject_t`): mirrored, normalized
__device__ float sample(const cudaTextureObject_t t, float u, float v) { return tex2D<float>(t, u, v); }

__global__ void mirrored(float *out, int width, int height, cudaTextureObject_t tex) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = sample(tex, 2.5f * x / width - 0.7f, 1.7f * y / height - 0.3f);
}

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureFilterMode filter) {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc desc = {};
    desc.normalizedCoords = true;
    desc.filterMode = cudaFilterModeLinear;
    desc.addressMode[0] = cudaAddressModeWrap;
    desc.addressMode[1] = cudaAddressModeWrap;
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &res, &desc, NULL);
    return tex;
}

void run(float *out, int *ints, const int *keys, int width, int height) {
    cudaChannelFormatDesc floats = cudaCreateChannelDesc<float>();
    cudaArray_t image;
    cudaMallocArray(&image, &floats, width, height);
    cudaTextureObject_t rotated = make_texture(image, cudaFilterModeLinear);
    rotate<<<dim3(width / 8, height / 8), dim3(8, 8)>>>(out, width, height, 0.5f, rotated);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = image;
    cudaTextureDesc texels = {};
    texels.normalizedCoords = false;
    texels.filterMode = cudaFilterModePoint;
    texels.addressMode[0] = cudaAddressModeClamp;
    texels.addressMode[1] = cudaAddressModeClamp;
    texels.readMode = cudaReadModeElementType;
    cudaTextureObject_t rows;
    cudaCreateTextureObject(&rows, &res, &texels, NULL);
    box_rows<<<(height + 63) / 64, 64>>>(out, width, height, 3, rows);

    cudaResourceDesc linear = {};
    linear.resType = cudaResourceTypeLinear;
    linear.res.linear.devPtr = ints;
    linear.res.linear.desc = cudaCreateChannelDesc<int>();
    linear.res.linear.sizeInBytes = 256 * sizeof(int);
    cudaTextureDesc plain = {};
    cudaTextureObject_t table;
    cudaCreateTextureObject(&table, &linear, &plain, NULL);
    lookup<<<(width + 127) / 128, 128>>>(ints, keys, width, table);

    cudaChannelFormatDesc bytes = cudaCreateChannelDesc<uchar4>();
    cudaArray_t colors;
    cudaMallocArray(&colors, &bytes, width, height);
    cudaResourceDesc rgbaRes = {};
    rgbaRes.resType = cudaResourceTypeArray;
    rgbaRes.res.array.array = colors;
    cudaTextureDesc rgbaDesc = {};
    rgbaDesc.normalizedCoords = false;
    rgbaDesc.filterMode = cudaFilterModeLinear;
    rgbaDesc.addressMode[0] = cudaAddressModeBorder;
    rgbaDesc.addressMode[1] = cudaAddressModeBorder;
    rgbaDesc.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t rgba;
    cudaCreateTextureObject(&rgba, &rgbaRes, &rgbaDesc, NULL);
    shade<<<dim3(width / 16, height / 16), dim3(16, 16)>>>(out, width, height, 1.3f, rgba);

    cudaTextureDesc mirror = {};
    mirror.normalizedCoords = true;
    mirror.filterMode = cudaFilterModeLinear;
    mirror.addressMode[0] = cudaAddressModeMirror;
    mirror.addressMode[1] = cudaAddressModeMirror;
    cudaTextureObject_t reflected;
    cudaCreateTextureObject(&reflected, &res, &mirror, NULL);
    mirrored<<<dim3(width / 16, height / 16), dim3(16, 16)>>>(out, width, height, reflected);
}

// surfaces: elements addressed in bytes along x, read and written
__global__ void brighten(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    uchar4 p = surf2Dread<uchar4>(in, x * sizeof(uchar4), y);
    uchar4 q;
    surf2Dread(&q, in, (width - 1 - x) * sizeof(uchar4), y);
    surf2Dwrite(make_uchar4(p.x / 2 + q.x / 2, p.y, min(p.z + 40, 255), 255), out, x * sizeof(uchar4), y);
}
