// Attention, one thread block per (query row, head), over the visible slots of that row (AttentionArgs):
// text slots [0, min(img_begin, limit)), then the row's kept image slots (or all of [img_begin, img_end)),
// then [img_end, limit). Causal, block-bidirectional draft and gathered sparse attention differ only in
// key_limit and the keep lists, so one kernel serves all three.
//
// Fixed order: scores are one fmaf chain over d per key; the softmax sum and the output accumulate over keys
// in a layout that depends only on the row's key count and the block size, so a row gives the same bits in
// a call of width 1 or 33.
#include <cmath>
#include <string>

#include "backend/cuda/check.h"
#include "backend/cuda/kernels.h"

namespace saccade::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

struct RowKeys {
  int n;                // visible keys
  int text_end;         // keys [0, text_end) are slots 0 ..
  int kept;             // keys [text_end, text_end + kept) are keep[...]
  int tail_slot;        // keys after that are slots tail_slot ..
  const int* keep;

  __device__ int slot(int i) const {
    if (i < text_end) return i;
    if (i < text_end + kept) return keep[i - text_end];
    return tail_slot + (i - text_end - kept);
  }
};

__device__ RowKeys row_keys(const DeviceAttention& a, int row) {
  const int limit = a.key_limit[row];
  const int off = a.keep_off ? a.keep_off[row] : -1;
  RowKeys r;
  if (off < 0 || a.img_end <= a.img_begin) {
    r.n = limit;
    r.text_end = limit;
    r.kept = 0;
    r.tail_slot = limit;
    r.keep = nullptr;
    return r;
  }
  r.text_end = a.img_begin < limit ? a.img_begin : limit;
  r.kept = a.keep_n[row];
  r.keep = a.keep + off;
  r.tail_slot = a.img_end;
  r.n = r.text_end + r.kept + (limit > a.img_end ? limit - a.img_end : 0);
  return r;
}

// Block-wide reductions with a fixed tree: butterfly inside each warp, then warp 0 over the warp results.
template <class Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
  for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = op(r, scratch[w]);
  return r;
}

// Shared memory: q [d] | reduce scratch [kWarps] | per-group partial outputs [groups * d] | probs [max_keys]
__global__ void __launch_bounds__(kThreads) attention_kernel(DeviceAttention a, float scale) {
  extern __shared__ float sh[];
  const int d = a.d, row = blockIdx.x / a.Hq, head = blockIdx.x % a.Hq, tid = threadIdx.x;
  const int groups = d <= kThreads ? kThreads / d : 1;
  float* qs = sh;
  float* red = qs + d;
  float* part = red + kWarps;
  float* prob = part + groups * d;

  const RowKeys keys = row_keys(a, row);
  const int kvh = head / (a.Hq / a.Hkv);
  const size_t kv_stride = size_t(a.Hkv) * d;
  const float* k = a.k + size_t(kvh) * d;
  const float* v = a.v + size_t(kvh) * d;
  const float* q = a.q + (size_t(row) * a.Hq + head) * d;
  for (int j = tid; j < d; j += kThreads) qs[j] = q[j];
  __syncthreads();

  float mx = -INFINITY;
  for (int i = tid; i < keys.n; i += kThreads) {
    const float* kr = k + size_t(keys.slot(i)) * kv_stride;
    float s = 0.0f;
    for (int j = 0; j < d; ++j) s = fmaf(qs[j], kr[j], s);
    s *= scale;
    prob[i] = s;
    mx = fmaxf(mx, s);
  }
  mx = block_reduce(mx, red, [](float x, float y) { return fmaxf(x, y); });
  float sum = 0.0f;
  for (int i = tid; i < keys.n; i += kThreads) {
    const float e = expf(prob[i] - mx);
    prob[i] = e;
    sum += e;
  }
  sum = block_reduce(sum, red, [](float x, float y) { return x + y; });
  const float inv = 1.0f / sum;
  __syncthreads();  // prob[] complete before any thread reads other threads' entries

  // Output: group g accumulates keys g, g + groups, ... for its d columns; groups are then summed in order.
  for (int t = tid; t < groups * d; t += kThreads) {
    const int g = t / d, j = t % d;
    float acc = 0.0f;
    for (int i = g; i < keys.n; i += groups) acc = fmaf(prob[i] * inv, v[size_t(keys.slot(i)) * kv_stride + j], acc);
    part[t] = acc;
  }
  __syncthreads();
  float* out = a.out + (size_t(row) * a.Hq + head) * d;
  for (int j = tid; j < d; j += kThreads) {
    float o = 0.0f;
    for (int g = 0; g < groups; ++g) o += part[g * d + j];
    out[j] = o;
  }

  if (a.mass || a.scores) {
    const int img_n = a.img_end - a.img_begin;
    float img = 0.0f;
    for (int i = tid; i < keys.n; i += kThreads) {
      const int s = keys.slot(i);
      if (s < a.img_begin || s >= a.img_end) continue;
      const float p = prob[i] * inv;
      img += p;
      if (a.scores) a.scores[size_t(blockIdx.x) * img_n + (s - a.img_begin)] = p;
    }
    img = block_reduce(img, red, [](float x, float y) { return x + y; });
    if (a.mass && tid == 0) a.mass[blockIdx.x] = img;
  }
}

__global__ void head_sums_kernel(const float* mass, const float* scores, int Hq, int img_n, float* mass_out,
                                 float* scores_out) {
  const int row = blockIdx.x;
  if (mass && threadIdx.x == 0) {
    float m = 0.0f;
    for (int h = 0; h < Hq; ++h) m += mass[size_t(row) * Hq + h];
    mass_out[row] = m / float(Hq);
  }
  if (!scores) return;
  for (int i = threadIdx.x; i < img_n; i += blockDim.x) {
    float s = 0.0f;
    for (int h = 0; h < Hq; ++h) s += scores[(size_t(row) * Hq + h) * img_n + i];
    scores_out[size_t(row) * img_n + i] = s;
  }
}

size_t shared_bytes(int d, int max_keys) {
  const int groups = d <= kThreads ? kThreads / d : 1;
  return sizeof(float) * (size_t(d) + kWarps + size_t(groups) * d + size_t(max_keys));
}

size_t device_shared_limit() {
  int dev = 0, optin = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "shared memory limit");
  // Lets long rows (thousands of image patches) use the device's whole opt-in shared memory.
  check(cudaFuncSetAttribute(attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
        "attention shared memory");
  return size_t(optin);
}

}  // namespace

void attention(const DeviceAttention& a, int max_keys, cudaStream_t s) {
  if (a.M <= 0) return;
  static const size_t limit = device_shared_limit();
  const size_t bytes = shared_bytes(a.d, max_keys);
  if (bytes > limit)
    throw EngineError("cuda attention: " + std::to_string(max_keys) + " keys exceed the device's shared memory");
  attention_kernel<<<unsigned(a.M * a.Hq), kThreads, bytes, s>>>(a, 1.0f / std::sqrt(float(a.d)));
  check(cudaGetLastError(), "attention launch");
}

void fixation_head_sums(const float* mass, const float* scores, int M, int Hq, int img_n, float* mass_out,
                        float* scores_out, cudaStream_t s) {
  if (M <= 0) return;
  head_sums_kernel<<<unsigned(M), 128, 0, s>>>(mass, scores, Hq, img_n, mass_out, scores_out);
  check(cudaGetLastError(), "fixation head sums launch");
}

}  // namespace saccade::cuda
