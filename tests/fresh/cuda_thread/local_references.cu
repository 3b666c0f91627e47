// Local reference variables: `uint &endpoint = edges[tid]` (cuda-samples' segmentationTreeThrust
// invalidateLoops), a reference to a shared element, `auto &` to scalar, vector and struct locals,
// and const references; the element a reference names is fixed where it is bound, its index
// computed once there (`j` changes after `later` is bound).
struct Acc { float sum; int count; };

__global__ void invalidate_loops(const unsigned *startpoints, const unsigned *mapping, unsigned *edges,
                                 unsigned count, unsigned vertices) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < count) {
        unsigned start = startpoints[tid] % vertices;
        unsigned &endpoint = edges[tid];
        unsigned newStart = mapping[start] % 7;
        unsigned newEnd = mapping[endpoint % vertices] % 7;
        if (newStart == newEnd) {
            endpoint = 0xffffffffu;
        } else {
            endpoint += 1;
        }
    }
}

__global__ void aliases(const float *x, float *sums, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float part[128];
    float &mine = part[threadIdx.x];
    mine = 0.0f;
    if (tid < n) {
        float local = x[tid];
        auto &v = local;
        v *= 3.0f;
        float4 q = make_float4(1.f, 2.f, 3.f, 4.f);
        float4 &qr = q;
        qr.y = v;
        Acc a = {0.f, 0};
        auto &ar = a;
        ar.sum += qr.y;
        ar.count++;
        const float &c = x[tid];
        int j = tid;
        float &later = sums[j];
        j = (j + 1) % n;
        later = c + local + q.y + a.sum + a.count + x[j];
        mine = later;
    }
    __syncthreads();
    if (tid < n) sums[tid] += part[(threadIdx.x + 1) % 128];
}

void run(const unsigned *s, const unsigned *m, unsigned *e, unsigned count, const float *x, float *sums, int n) {
    invalidate_loops<<<(count + 255) / 256, 256>>>(s, m, e, count, 1000);
    aliases<<<(n + 127) / 128, 128>>>(x, sums, n);
}
