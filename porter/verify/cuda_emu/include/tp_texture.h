/* tileport CPU emulation of texture and surface objects, after the CUDA C++ Programming Guide's
 * appendix "Texture Fetching". Included by tp_emu.h after its host runtime stubs.
 *
 * An object is not a handle here but the texture itself, passed by value: verify packs one per
 * texture parameter (a cuda_exec.StructArg whose `data` field points at the texels), and host
 * code gets the same from cudaCreateTextureObject. Keep the layout: the Python side packs it
 * byte for byte.
 *
 * Choices where the guide leaves the hardware's freedom:
 *   - linear filtering weighs with alpha = frac(xB) rounded to 8 fractional bits (the hardware's
 *     9-bit fixed point): nearbyintf(frac * 256) / 256 (ties to even); the port side rounds the same way;
 *   - a vector result reads `channels` components; the ones the texture lacks are 0 (w too);
 *   - border mode reads 0 outside (the border colour is not part of the ABI);
 *   - surface reads and writes outside the surface (boundary mode trap, which faults on a GPU)
 *     read 0 and write nothing, like cudaBoundaryModeZero;
 *   - mipmaps do not exist: *Lod and *Grad fetches read level 0.
 * Layered and cubemap textures, tex2Dgather and legacy texture references stop the launch.
 */
#ifndef TP_TEXTURE_H
#define TP_TEXTURE_H 1

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

/* the component type codes of the ABI's `texel` field */
enum {
  TP_TEXEL_F32 = 0,
  TP_TEXEL_U8 = 1,
  TP_TEXEL_S8 = 2,
  TP_TEXEL_U16 = 3,
  TP_TEXEL_S16 = 4,
  TP_TEXEL_S32 = 5,
  TP_TEXEL_U32 = 6,
  TP_TEXEL_F16 = 7,
};

/* What verify passes, by value, for a texture parameter: a trivial type (host code memsets it;
 * at namespace scope it starts zeroed, the empty texture). Host code writes `tex = 0` and
 * compares with 0: an integer converts to the empty texture (only 0 means anything). */
struct cudaTextureObject_t {
  const void *data;         /* texels, row-major: ((z * height + y) * width + x) * channels + c */
  int width, height, depth; /* 1 for the dimensions a texture does not have */
  int channels;             /* components per texel: 1, 2 or 4 */
  int texel;                /* component type: TP_TEXEL_* */
  int filter;               /* cudaTextureFilterMode */
  int address[3];           /* cudaTextureAddressMode per dimension */
  int normalized;           /* 1: coordinates in [0, 1) scaled by the extent */
  int read_mode;            /* cudaTextureReadMode */
  cudaTextureObject_t() = default;
  constexpr cudaTextureObject_t(unsigned long long)
      : data(nullptr), width(0), height(0), depth(0), channels(0), texel(0), filter(0), address{0, 0, 0},
        normalized(0), read_mode(0) {}
  constexpr explicit operator bool() const { return data != nullptr; }
  friend constexpr bool operator==(const cudaTextureObject_t &, const cudaTextureObject_t &) = default;
};
/* A surface: the same fields in the same order (one packer serves both); only data, the extent,
 * channels and texel mean anything. */
struct cudaSurfaceObject_t {
  void *data;
  int width, height, depth;
  int channels;
  int texel;
  int filter;
  int address[3];
  int normalized;
  int read_mode;
  cudaSurfaceObject_t() = default;
  constexpr cudaSurfaceObject_t(unsigned long long)
      : data(nullptr), width(0), height(0), depth(0), channels(0), texel(0), filter(0), address{0, 0, 0},
        normalized(0), read_mode(0) {}
  constexpr explicit operator bool() const { return data != nullptr; }
  friend constexpr bool operator==(const cudaSurfaceObject_t &, const cudaSurfaceObject_t &) = default;
};
static_assert(sizeof(cudaTextureObject_t) == 56 && offsetof(cudaTextureObject_t, read_mode) == 48);
static_assert(sizeof(cudaSurfaceObject_t) == sizeof(cudaTextureObject_t));
static_assert(std::is_trivial_v<cudaTextureObject_t> && std::is_standard_layout_v<cudaTextureObject_t> &&
              offsetof(cudaSurfaceObject_t, read_mode) == 48);
/* the driver API's names of the same objects (one type in CUDA too) */
typedef cudaTextureObject_t CUtexObject;
typedef cudaSurfaceObject_t CUsurfObject;
/* legacy texture references (removed in CUDA 12; older code still declares them) */
template <class T, int dim = 1, int mode = cudaReadModeElementType> struct texture {
  int normalized, filterMode, addressMode[3];
};

namespace tp {

/* One component type of the ABI: its size, its load, the divisor of a normalized-float read
 * (0: read as it is; 8/16-bit integers only, signed ones clamped at -1). */
struct TexelType {
  int bytes;
  double (*load)(const void *);
  float unit;
};
template <class C> inline double load_texel(const void *p) { return (double)bits_as<C>(p); }
inline constexpr TexelType texel_types[] = {
    {4, load_texel<float>, 0.f},           /* TP_TEXEL_F32 */
    {1, load_texel<unsigned char>, 255.f}, /* TP_TEXEL_U8 */
    {1, load_texel<signed char>, 127.f},   /* TP_TEXEL_S8 */
    {2, load_texel<unsigned short>, 65535.f},
    {2, load_texel<short>, 32767.f},
    {4, load_texel<int>, 0.f},
    {4, load_texel<unsigned>, 0.f},
    {2, load_texel<_Float16>, 0.f}, /* TP_TEXEL_F16: always read as float */
};

[[noreturn]] inline void texture_misuse(const char *what) {
  tp_rt_fail(TP_RT_BAD_CONFIG, what, "", 0);
}

template <class O> inline const TexelType &texel_type(const O &o, const char *what) {
  if (!o.data) texture_misuse(what);
  if (o.texel < 0 || o.texel >= (int)std::size(texel_types) || o.channels < 1 || o.channels > 4 ||
      o.width < 1 || o.height < 1 || o.depth < 1)
    texture_misuse("a texture or surface object with an unknown texel type, channel count or an "
                   "empty extent (texel 0..7, channels 1, 2 or 4, width/height/depth at least 1)");
  return texel_types[o.texel];
}

/* A result type's component type and count: scalars, CUDA's vector types, half2. */
template <class T> struct tex_shape {
  using C = T;
  static constexpr int n = 1;
};
#define TP_TEX_SHAPE(V, T, N)  \
  template <> struct tex_shape<V> { \
    using C = T;                   \
    static constexpr int n = N;    \
  };
#define TP_TEX_SHAPES(P, T) \
  TP_TEX_SHAPE(P##1, T, 1) TP_TEX_SHAPE(P##2, T, 2) TP_TEX_SHAPE(P##3, T, 3) TP_TEX_SHAPE(P##4, T, 4)
TP_TEX_SHAPES(char, signed char)
TP_TEX_SHAPES(uchar, unsigned char)
TP_TEX_SHAPES(short, short)
TP_TEX_SHAPES(ushort, unsigned short)
TP_TEX_SHAPES(int, int)
TP_TEX_SHAPES(float, float)
TP_TEX_SHAPE(uint1, unsigned, 1)
TP_TEX_SHAPE(uint2, unsigned, 2)
TP_TEX_SHAPE(uint3, unsigned, 3)
TP_TEX_SHAPE(uint4, unsigned, 4)
TP_TEX_SHAPE(__half2, __half, 2)
#undef TP_TEX_SHAPES
#undef TP_TEX_SHAPE

template <class C> inline constexpr bool tex_float = std::is_floating_point_v<C> || std::is_same_v<C, __half>;

/* Components (up to 4) as a T; the missing ones 0. */
template <class T, class V> inline T tex_result(const V (&v)[4]) {
  using S = tex_shape<T>;
  using C = typename S::C;
  static_assert(sizeof(T) == S::n * sizeof(C), "tileport: not a texture result type");
  C c[S::n];
  for (int k = 0; k < S::n; ++k) {
    if constexpr (tex_float<C>)
      c[k] = (C)(float)v[k];
    else
      c[k] = (C)(long long)v[k]; /* element type: the texel's integer, converted */
  }
  T out;
  std::memcpy(&out, c, sizeof(T));
  return out;
}

/* The components of one texel as read (normalized-float read mode applied); 0 outside. */
inline void texel_at(const cudaTextureObject_t &t, const TexelType &k, int x, int y, int z, double (&v)[4]) {
  for (double &c : v) c = 0.0;
  if (x < 0 || y < 0 || z < 0 || x >= t.width || y >= t.height || z >= t.depth) return; /* border */
  const char *p = (const char *)t.data +
                  ((((size_t)z * t.height + y) * t.width + x) * t.channels) * (size_t)k.bytes;
  bool norm = t.read_mode == cudaReadModeNormalizedFloat && k.unit != 0.f;
  for (int c = 0; c < t.channels; ++c) {
    double r = k.load(p + (size_t)c * k.bytes);
    v[c] = norm ? std::max((float)r / k.unit, -1.0f) : r;
  }
}

/* Where one coordinate samples along one dimension of n texels: the two texel indices (-1:
 * outside, border mode) and the weight of the second (0 for point filtering). */
struct TexAxis {
  int i0, i1;
  float alpha;
};

inline int tex_floor(float x) {
  float f = std::floor(x);
  return f > -1e9f ? (f < 1e9f ? (int)f : 1000000000) : -1000000000; /* NaN too: far outside */
}

/* A texel index addressed per mode (unnormalized coordinates: wrap and mirror act as clamp). */
inline int tex_address(int i, int n, int mode) {
  switch (mode) {
  case cudaAddressModeWrap: return ((i % n) + n) % n;
  case cudaAddressModeMirror: {
    int m = ((i % (2 * n)) + 2 * n) % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  case cudaAddressModeBorder: return i >= 0 && i < n ? i : -1;
  default: return std::clamp(i, 0, n - 1);
  }
}

inline TexAxis tex_axis(float x, int n, int mode, bool normalized, bool linear) {
  if (normalized) { /* wrap and mirror act on the coordinate in [0, 1), then it is scaled */
    if (mode == cudaAddressModeWrap) {
      x -= std::floor(x);
    } else if (mode == cudaAddressModeMirror) {
      float f = std::floor(x);
      x = std::fmod(f, 2.0f) != 0.0f ? 1.0f - (x - f) : x - f;
    }
    x *= (float)n;
  } else if (mode != cudaAddressModeBorder) {
    mode = cudaAddressModeClamp;
  }
  if (!linear) {
    int i = tex_address(tex_floor(x), n, mode);
    return TexAxis{i, i, 0.0f};
  }
  float xb = x - 0.5f;
  int i = tex_floor(xb);
  float alpha = std::nearbyint((xb - std::floor(xb)) * 256.0f) / 256.0f; /* 8 fractional bits */
  return TexAxis{tex_address(i, n, mode), tex_address(i + 1, n, mode), alpha};
}

/* tex1D/2D/3D: `dims` coordinates of x through the texture's filter and addressing. */
template <class T> inline T tex_sample(const cudaTextureObject_t &t, int dims, float x0, float x1, float x2) {
  const TexelType &k = texel_type(t, "a texture fetch from an empty texture object");
  bool linear = t.filter == cudaFilterModeLinear;
  const float x[3] = {x0, x1, x2};
  const int extent[3] = {t.width, t.height, t.depth};
  TexAxis ax[3] = {{0, 0, 0.0f}, {0, 0, 0.0f}, {0, 0, 0.0f}};
  for (int d = 0; d < dims; ++d) ax[d] = tex_axis(x[d], extent[d], t.address[d], t.normalized, linear);
  double v[4];
  if (!linear) {
    texel_at(t, k, ax[0].i0, ax[1].i0, ax[2].i0, v);
    return tex_result<T>(v);
  }
  bool float_texels = k.unit == 0.f ? t.texel == TP_TEXEL_F32 || t.texel == TP_TEXEL_F16
                                    : t.read_mode == cudaReadModeNormalizedFloat;
  if (!float_texels || !tex_float<typename tex_shape<T>::C>)
    texture_misuse("linear filtering of a texture read as integers (CUDA filters float texels and "
                   "normalized-float reads only)");
  /* (1-a)(1-b)(1-c) T[i,j,k] + a(1-b)(1-c) T[i+1,j,k] + ... over the corners that exist */
  float acc[4] = {};
  for (int cz = 0; cz < (dims > 2 ? 2 : 1); ++cz)
    for (int cy = 0; cy < (dims > 1 ? 2 : 1); ++cy)
      for (int cx = 0; cx < 2; ++cx) {
        float w = (cx ? ax[0].alpha : 1.0f - ax[0].alpha);
        if (dims > 1) w *= cy ? ax[1].alpha : 1.0f - ax[1].alpha;
        if (dims > 2) w *= cz ? ax[2].alpha : 1.0f - ax[2].alpha;
        texel_at(t, k, cx ? ax[0].i1 : ax[0].i0, cy ? ax[1].i1 : ax[1].i0, cz ? ax[2].i1 : ax[2].i0, v);
        for (int c = 0; c < 4; ++c) acc[c] += w * (float)v[c];
      }
  return tex_result<T>(acc);
}

/* Surface access: sizeof(T) bytes at byte x of row (z, y); outside the surface (after a clamp
 * for cudaBoundaryModeClamp) nullptr, which reads 0 and writes nothing. */
inline char *surf_at(const cudaSurfaceObject_t &s, int bytes, int x, int y, int z, int mode) {
  const TexelType &k = texel_type(s, "a surface access through an empty surface object");
  long long row = (long long)s.width * s.channels * k.bytes;
  if (mode == cudaBoundaryModeClamp) {
    x = (int)std::clamp<long long>(x, 0, std::max(0LL, row - bytes));
    y = std::clamp(y, 0, s.height - 1);
    z = std::clamp(z, 0, s.depth - 1);
  }
  if (x < 0 || (long long)x + bytes > row || y < 0 || y >= s.height || z < 0 || z >= s.depth) return nullptr;
  return (char *)s.data + ((long long)z * s.height + y) * row + x;
}
template <class T> inline T surf_read(const cudaSurfaceObject_t &s, int x, int y, int z, int mode) {
  T v{};
  if (const char *p = surf_at(s, (int)sizeof(T), x, y, z, mode)) std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> inline void surf_write(const T &v, const cudaSurfaceObject_t &s, int x, int y, int z, int mode) {
  if (char *p = surf_at(s, (int)sizeof(T), x, y, z, mode)) std::memcpy(p, &v, sizeof(T));
}

} // namespace tp

/* ---------------------------------------------------------------- fetches */
/* tex1Dfetch reads linear memory: no filtering, no addressing, 0 outside. */
template <class T> inline T tex1Dfetch(cudaTextureObject_t t, int x) {
  const tp::TexelType &k = tp::texel_type(t, "a texture fetch from an empty texture object");
  double v[4];
  tp::texel_at(t, k, x, 0, 0, v);
  return tp::tex_result<T>(v);
}
template <class T> inline void tex1Dfetch(T *out, cudaTextureObject_t t, int x) { *out = tex1Dfetch<T>(t, x); }
template <class T> inline T tex1D(cudaTextureObject_t t, float x) { return tp::tex_sample<T>(t, 1, x, 0.0f, 0.0f); }
template <class T> inline void tex1D(T *out, cudaTextureObject_t t, float x) { *out = tex1D<T>(t, x); }
template <class T> inline T tex2D(cudaTextureObject_t t, float x, float y) { return tp::tex_sample<T>(t, 2, x, y, 0.0f); }
template <class T> inline void tex2D(T *out, cudaTextureObject_t t, float x, float y) { *out = tex2D<T>(t, x, y); }
template <class T> inline T tex3D(cudaTextureObject_t t, float x, float y, float z) { return tp::tex_sample<T>(t, 3, x, y, z); }
template <class T> inline void tex3D(T *out, cudaTextureObject_t t, float x, float y, float z) { *out = tex3D<T>(t, x, y, z); }
/* one mipmap level: level and gradients change nothing */
template <class T> inline T tex1DLod(cudaTextureObject_t t, float x, float) { return tex1D<T>(t, x); }
template <class T> inline void tex1DLod(T *out, cudaTextureObject_t t, float x, float) { *out = tex1D<T>(t, x); }
template <class T> inline T tex2DLod(cudaTextureObject_t t, float x, float y, float) { return tex2D<T>(t, x, y); }
template <class T> inline void tex2DLod(T *out, cudaTextureObject_t t, float x, float y, float) { *out = tex2D<T>(t, x, y); }
template <class T> inline T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float) { return tex3D<T>(t, x, y, z); }
template <class T> inline void tex3DLod(T *out, cudaTextureObject_t t, float x, float y, float z, float) { *out = tex3D<T>(t, x, y, z); }
template <class T> inline T tex1DGrad(cudaTextureObject_t t, float x, float, float) { return tex1D<T>(t, x); }
template <class T> inline void tex1DGrad(T *out, cudaTextureObject_t t, float x, float, float) { *out = tex1D<T>(t, x); }
template <class T> inline T tex2DGrad(cudaTextureObject_t t, float x, float y, float2, float2) { return tex2D<T>(t, x, y); }
template <class T> inline void tex2DGrad(T *out, cudaTextureObject_t t, float x, float y, float2, float2) { *out = tex2D<T>(t, x, y); }
template <class T> inline T tex3DGrad(cudaTextureObject_t t, float x, float y, float z, float4, float4) { return tex3D<T>(t, x, y, z); }
template <class T> inline void tex3DGrad(T *out, cudaTextureObject_t t, float x, float y, float z, float4, float4) { *out = tex3D<T>(t, x, y, z); }
/* not emulated. Each function is spelled out (no macro) so that shim/generate.py declares it. */
template <class T, class... A> inline T tex1DLayered(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayered'"); }
template <class T, class... A> inline void tex1DLayered(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayered'"); }
template <class T, class... A> inline T tex2DLayered(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayered'"); }
template <class T, class... A> inline void tex2DLayered(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayered'"); }
template <class T, class... A> inline T texCubemap(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemap'"); }
template <class T, class... A> inline void texCubemap(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemap'"); }
template <class T, class... A> inline T texCubemapLayered(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayered'"); }
template <class T, class... A> inline void texCubemapLayered(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayered'"); }
template <class T, class... A> inline T tex2Dgather(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2Dgather'"); }
template <class T, class... A> inline void tex2Dgather(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2Dgather'"); }
template <class T, class... A> inline T tex1DLayeredLod(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayeredLod'"); }
template <class T, class... A> inline void tex1DLayeredLod(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayeredLod'"); }
template <class T, class... A> inline T tex2DLayeredLod(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayeredLod'"); }
template <class T, class... A> inline void tex2DLayeredLod(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayeredLod'"); }
template <class T, class... A> inline T texCubemapLod(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLod'"); }
template <class T, class... A> inline void texCubemapLod(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLod'"); }
template <class T, class... A> inline T texCubemapLayeredLod(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayeredLod'"); }
template <class T, class... A> inline void texCubemapLayeredLod(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayeredLod'"); }
template <class T, class... A> inline T tex1DLayeredGrad(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayeredGrad'"); }
template <class T, class... A> inline void tex1DLayeredGrad(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex1DLayeredGrad'"); }
template <class T, class... A> inline T tex2DLayeredGrad(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayeredGrad'"); }
template <class T, class... A> inline void tex2DLayeredGrad(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'tex2DLayeredGrad'"); }
template <class T, class... A> inline T texCubemapGrad(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapGrad'"); }
template <class T, class... A> inline void texCubemapGrad(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapGrad'"); }
template <class T, class... A> inline T texCubemapLayeredGrad(cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayeredGrad'"); }
template <class T, class... A> inline void texCubemapLayeredGrad(T *, cudaTextureObject_t, A...) { tp::unemulated("texture fetch 'texCubemapLayeredGrad'"); }
template <class T, int D, int M, class... A> inline T tex1Dfetch(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex1Dfetch'"); }
template <class T, int D, int M, class... A> inline T tex1D(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex1D'"); }
template <class T, int D, int M, class... A> inline T tex2D(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex2D'"); }
template <class T, int D, int M, class... A> inline T tex3D(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex3D'"); }
template <class T, int D, int M, class... A> inline T tex1DLayered(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex1DLayered'"); }
template <class T, int D, int M, class... A> inline T tex2DLayered(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'tex2DLayered'"); }
template <class T, int D, int M, class... A> inline T texCubemap(texture<T, D, M>, A...) { tp::unemulated("texture fetch 'texCubemap'"); }

/* ---------------------------------------------------------------- surfaces (x in bytes) */
template <class T> inline T surf1Dread(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return tp::surf_read<T>(s, x, 0, 0, m);
}
template <class T> inline void surf1Dread(T *out, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = tp::surf_read<T>(s, x, 0, 0, m);
}
template <class T> inline void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  tp::surf_write(v, s, x, 0, 0, m);
}
template <class T> inline T surf2Dread(cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return tp::surf_read<T>(s, x, y, 0, m);
}
template <class T> inline void surf2Dread(T *out, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = tp::surf_read<T>(s, x, y, 0, m);
}
template <class T> inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  tp::surf_write(v, s, x, y, 0, m);
}
template <class T> inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return tp::surf_read<T>(s, x, y, z, m);
}
template <class T> inline void surf3Dread(T *out, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = tp::surf_read<T>(s, x, y, z, m);
}
template <class T> inline void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  tp::surf_write(v, s, x, y, z, m);
}
template <class T, class... A> inline T surf1DLayeredread(cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf1DLayeredread'"); }
template <class T, class... A> inline void surf1DLayeredread(T *, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf1DLayeredread'"); }
template <class T, class... A> inline void surf1DLayeredwrite(T, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf1DLayeredwrite'"); }
template <class T, class... A> inline T surf2DLayeredread(cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf2DLayeredread'"); }
template <class T, class... A> inline void surf2DLayeredread(T *, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf2DLayeredread'"); }
template <class T, class... A> inline void surf2DLayeredwrite(T, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surf2DLayeredwrite'"); }
template <class T, class... A> inline T surfCubemapread(cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapread'"); }
template <class T, class... A> inline void surfCubemapread(T *, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapread'"); }
template <class T, class... A> inline void surfCubemapwrite(T, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapwrite'"); }
template <class T, class... A> inline T surfCubemapLayeredread(cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapLayeredread'"); }
template <class T, class... A> inline void surfCubemapLayeredread(T *, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapLayeredread'"); }
template <class T, class... A> inline void surfCubemapLayeredwrite(T, cudaSurfaceObject_t, A...) { tp::unemulated("surface access 'surfCubemapLayeredwrite'"); }

/* ---------------------------------------------------------------- host API */
/* Enough for host code that builds textures and surfaces to compile, and to work: an array is
 * dense host memory, an object describes it in the ABI above. */
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
};
struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};
struct cudaArray {
  cudaChannelFormatDesc desc;
  size_t width, height, depth; /* 0 for the dimensions the array lacks, as allocated */
  void *data;
};
typedef cudaArray *cudaArray_t;
typedef const cudaArray *cudaArray_const_t;
struct cudaMipmappedArray;
typedef cudaMipmappedArray *cudaMipmappedArray_t;
enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t width, height, pitchInBytes;
    } pitch2D;
  } res;
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4]; /* not in the ABI: the border reads 0 */
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
struct cudaResourceViewDesc {
  int format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
};
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent; /* width in bytes for pointers, in elements for arrays */
  cudaMemcpyKind kind;
};
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

namespace tp {
/* (kind, bits) -> TP_TEXEL_*, -1: none */
inline int texel_code(const cudaChannelFormatDesc &d) {
  static constexpr struct {
    cudaChannelFormatKind f;
    int bits, code;
  } table[] = {
      {cudaChannelFormatKindFloat, 32, TP_TEXEL_F32},    {cudaChannelFormatKindFloat, 16, TP_TEXEL_F16},
      {cudaChannelFormatKindUnsigned, 8, TP_TEXEL_U8},   {cudaChannelFormatKindSigned, 8, TP_TEXEL_S8},
      {cudaChannelFormatKindUnsigned, 16, TP_TEXEL_U16}, {cudaChannelFormatKindSigned, 16, TP_TEXEL_S16},
      {cudaChannelFormatKindSigned, 32, TP_TEXEL_S32},   {cudaChannelFormatKindUnsigned, 32, TP_TEXEL_U32},
  };
  for (const auto &e : table)
    if (e.f == d.f && e.bits == d.x) return e.code;
  return -1;
}
inline int channel_count(const cudaChannelFormatDesc &d) { return (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0); }
inline size_t element_bytes(const cudaChannelFormatDesc &d) { return size_t(d.x + d.y + d.z + d.w) / 8; }

/* The object of a resource: data, extent and texel type; cudaErrorInvalidValue if it has none. */
template <class O> inline cudaError_t describe(O *o, const cudaResourceDesc *r) {
  *o = O(0);
  cudaChannelFormatDesc desc;
  size_t w, h = 1, d = 1;
  switch (r->resType) {
  case cudaResourceTypeArray:
    o->data = r->res.array.array->data;
    desc = r->res.array.array->desc;
    w = r->res.array.array->width;
    h = std::max<size_t>(1, r->res.array.array->height);
    d = std::max<size_t>(1, r->res.array.array->depth);
    break;
  case cudaResourceTypeLinear:
    o->data = r->res.linear.devPtr;
    desc = r->res.linear.desc;
    w = element_bytes(desc) ? r->res.linear.sizeInBytes / element_bytes(desc) : 0;
    break;
  case cudaResourceTypePitch2D: /* the ABI is dense: rows must follow each other */
    o->data = r->res.pitch2D.devPtr;
    desc = r->res.pitch2D.desc;
    w = r->res.pitch2D.width;
    h = r->res.pitch2D.height;
    if (r->res.pitch2D.pitchInBytes != w * element_bytes(desc)) return cudaErrorNotSupported;
    break;
  default: return cudaErrorNotSupported;
  }
  o->width = (int)w, o->height = (int)h, o->depth = (int)d;
  o->channels = channel_count(desc);
  o->texel = texel_code(desc);
  return o->texel < 0 || o->channels == 3 ? cudaErrorInvalidValue : cudaSuccess;
}
} // namespace tp

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
template <class T> inline cudaChannelFormatDesc cudaCreateChannelDesc() {
  using S = tp::tex_shape<T>;
  using C = typename S::C;
  int b = (int)sizeof(C) * 8;
  cudaChannelFormatKind f = tp::tex_float<C>         ? cudaChannelFormatKindFloat
                            : std::is_signed_v<C> ? cudaChannelFormatKindSigned
                                                  : cudaChannelFormatKindUnsigned;
  return cudaChannelFormatDesc{b, S::n > 1 ? b : 0, S::n > 2 ? b : 0, S::n > 3 ? b : 0, f};
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() { return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaCreateChannelDescHalf(); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() { return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() { return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat); }

inline cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, cudaExtent e, unsigned = 0) {
  size_t n = std::max<size_t>(1, e.width) * std::max<size_t>(1, e.height) * std::max<size_t>(1, e.depth);
  void *data = std::calloc(n * tp::element_bytes(*desc) + 1, 1);
  *a = data ? new cudaArray{*desc, e.width, e.height, e.depth, data} : nullptr;
  return data ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, size_t w, size_t h = 0, unsigned f = 0) {
  return cudaMalloc3DArray(a, desc, cudaExtent{w, h, 0}, f);
}
inline cudaError_t cudaFreeArray(cudaArray_t a) {
  if (a) std::free(a->data);
  delete a;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                       size_t width, size_t height, cudaMemcpyKind k) {
  size_t row = dst->width * tp::element_bytes(dst->desc);
  return cudaMemcpy2D((char *)dst->data + hOffset * row + wOffset, row, src, spitch, width, height, k);
}
inline cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                         size_t width, size_t height, cudaMemcpyKind k) {
  size_t row = src->width * tp::element_bytes(src->desc);
  return cudaMemcpy2D(dst, dpitch, (const char *)src->data + hOffset * row + wOffset, row, width, height, k);
}
/* offsets in bytes, as CUDA's (deprecated) cudaMemcpyToArray */
inline cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t n,
                                     cudaMemcpyKind k) {
  size_t row = dst->width * tp::element_bytes(dst->desc);
  return cudaMemcpy((char *)dst->data + hOffset * row + wOffset, src, n, k);
}
inline cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t n,
                                       cudaMemcpyKind k) {
  size_t row = src->width * tp::element_bytes(src->desc);
  return cudaMemcpy(dst, (const char *)src->data + hOffset * row + wOffset, n, k);
}
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  struct Side {
    char *base;
    size_t elem, pitch, rows; /* element bytes (1 for pointers), row pitch, rows per slice */
    cudaPos pos;
  };
  auto side = [](cudaArray_t a, const cudaPitchedPtr &q, cudaPos pos) {
    if (!a) return Side{(char *)q.ptr, 1, q.pitch, q.ysize, pos};
    size_t e = tp::element_bytes(a->desc);
    return Side{(char *)a->data, e, a->width * e, std::max<size_t>(1, a->height), pos};
  };
  Side s = side(p->srcArray, p->srcPtr, p->srcPos), d = side(p->dstArray, p->dstPtr, p->dstPos);
  size_t width = p->extent.width * (p->srcArray ? s.elem : p->dstArray ? d.elem : 1); /* bytes */
  auto at = [](const Side &x, size_t y, size_t z) {
    return x.base + ((x.pos.z + z) * x.rows + x.pos.y + y) * x.pitch + x.pos.x * x.elem;
  };
  for (size_t z = 0; z < std::max<size_t>(1, p->extent.depth); ++z)
    for (size_t y = 0; y < std::max<size_t>(1, p->extent.height); ++y) std::memmove(at(d, y, z), at(s, y, z), width);
  return cudaSuccess;
}
inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r, const cudaTextureDesc *d,
                                           const cudaResourceViewDesc * = nullptr) {
  cudaError_t e = tp::describe(t, r);
  t->filter = d->filterMode;
  for (int i = 0; i < 3; ++i) t->address[i] = d->addressMode[i];
  t->normalized = d->normalizedCoords != 0;
  t->read_mode = d->readMode;
  return e;
}
inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t) { return cudaSuccess; }
inline cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r) { return tp::describe(s, r); }
inline cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t) { return cudaSuccess; }

#endif /* TP_TEXTURE_H */
