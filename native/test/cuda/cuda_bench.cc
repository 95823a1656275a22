// GPU check, part 2 (scripts/gpu-check.sh): decoding speed on one backend, written as JSON.
//   - per region (golden regions of the trained checkpoint; a small random checkpoint when they are absent,
//     flagged in the output): greedy AR, self-spec (fixed and auto block), and both with visual fixation;
//     median of --repeats runs after one warm-up, decode-phase tokens per second and forwards per token;
//   - decoder forward seconds by width over a 300-token context (the curve the auto block size uses);
//   - single ops: linear and attention per call, including gathered sparse attention against full.
// Exit status: 0 done, 2 error, 77 no CUDA device (skipped).
//
// Usage: saccade_cuda_bench [--out results.json] [--backend cuda|cpu] [--golden DIR] [--repeats N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "decode/block_size.h"
#include "decode/engine.h"
#include "golden_regions.h"
#include "model_runs.h"
#include "report.h"
#include "tiny_checkpoint.h"

using gpucheck::Json;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Mode {
  const char* name;
  saccade::DecodeMode mode;
  int block;  // 0: auto (Spec, Mtp)
  bool fixation;
};

Json bench_region(saccade::Model& m, const saccade::RegionInput& in, int max_new, int repeats) {
  const int B = m.cfg.diffusion_block_size;
  using saccade::DecodeMode;
  std::vector<Mode> modes = {{"ar", DecodeMode::AR, 0, false},
                             {"self_spec_fixed_block", DecodeMode::Spec, B, false},
                             {"self_spec_auto_block", DecodeMode::Spec, 0, false},
                             {"ar_fixation", DecodeMode::AR, 0, true},
                             {"self_spec_fixation", DecodeMode::Spec, B, true}};
  if (m.mtp) {  // the drafter GLM-OCR ships (docs/decisions/0018), where the checkpoint has one
    modes.push_back({"mtp_3_drafts", DecodeMode::Mtp, 3, false});
    modes.push_back({"mtp_auto", DecodeMode::Mtp, 0, false});
  }
  Json region = Json::object().set("region", in.id).set("kind", in.kind).set("width", in.width).set("height", in.height);
  Json results = Json::object();
  double ar_tps = 0;
  for (const Mode& md : modes) {
    std::vector<double> decode_ms, wall_ms, encode_ms, prefill_ms;
    gpucheck::DecodeRun last;
    for (int r = 0; r < repeats; ++r) {
      last = gpucheck::run_decode(m, in, md.mode, md.block, md.fixation, max_new);
      decode_ms.push_back(last.stats.decode_ms);
      wall_ms.push_back(last.wall_ms);
      encode_ms.push_back(last.stats.encode_ms);
      prefill_ms.push_back(last.stats.prefill_ms);
    }
    const double dm = median(decode_ms), tps = dm > 0 ? 1000.0 * last.stats.tokens / dm : 0;
    if (md.mode == DecodeMode::AR && !md.fixation) ar_tps = tps;
    results.set(md.name, Json::object()
                             .set("tokens", last.stats.tokens)
                             .set("forwards", last.stats.forwards)
                             .set("rounds", last.stats.rounds)
                             .set("decode_ms_median", dm)
                             .set("decode_tokens_per_s", tps)
                             .set("speedup_vs_ar", ar_tps > 0 ? tps / ar_tps : 0.0)
                             .set("encode_ms_median", median(encode_ms))
                             .set("prefill_ms_median", median(prefill_ms))
                             .set("wall_ms_median", median(wall_ms))
                             .set("visual_token_fraction", last.stats.visual_token_fraction)
                             .set("decode_ms_all", Json::list(decode_ms)));
    std::printf("  %-8s %-22s %4d tokens %4d forwards  %8.2f ms decode  %8.1f tok/s\n", in.id.c_str(), md.name,
                last.stats.tokens, last.stats.forwards, dm, tps);
  }
  region.set("modes", std::move(results));
  return region;
}

// Milliseconds per call of f, synchronised by one tiny download after `iters` calls.
template <class F>
double per_call_ms(saccade::Backend& b, const saccade::Buffer& sync, int iters, F&& f) {
  float sink;
  f();
  b.download(&sink, sync.data(), 1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) f();
  b.download(&sink, sync.data(), 1);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / iters;
}

Json bench_ops(saccade::Backend& b) {
  Json ops = Json::array();
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const auto rnd = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = nd(rng);
    return v;
  };
  const auto dev = [&](const std::vector<float>& h) {
    saccade::Buffer d(&b, h.size());
    b.upload(d.data(), h.data(), h.size());
    return d;
  };
  {
    const int K = 256, N = 768;
    saccade::Weight W = b.upload_weight(rnd(size_t(N) * K), N, K, saccade::WeightUse::Linear);
    for (int M : {1, 33, 512}) {
      saccade::Buffer x = dev(rnd(size_t(M) * K)), y(&b, size_t(M) * N);
      const double ms = per_call_ms(b, y, 200, [&] { b.linear(x.data(), M, W, nullptr, y.data()); });
      ops.push(Json::object().set("op", "linear").set("M", M).set("K", K).set("N", N).set("ms_per_call", ms));
    }
  }
  {
    // Decoder-sized attention over 800 cache slots of which 768 are image tokens.
    const int Hq = 8, Hkv = 4, d = 32, cap = 900, ib = 1, ie = 769, L = 800;
    saccade::Buffer k = dev(rnd(size_t(cap) * Hkv * d)), v = dev(rnd(size_t(cap) * Hkv * d));
    std::vector<int> keep;
    for (int s = ib; s < ie; s += 12) keep.push_back(s);  // 64 of 768 image slots (8%)
    for (int M : {1, 33}) {
      for (bool gathered : {false, true}) {
        saccade::Buffer q = dev(rnd(size_t(M) * Hq * d)), out(&b, size_t(M) * Hq * d);
        std::vector<int> limit(size_t(M), L + M);
        std::vector<const int*> keep_ptr(size_t(M), keep.data());
        std::vector<int> keep_n(size_t(M), int(keep.size()));
        saccade::AttentionArgs a =
            saccade::attention_args(q.data(), k.data(), v.data(), M, Hq, Hkv, d, limit.data(), out.data());
        a.img_begin = ib;
        a.img_end = ie;
        if (gathered) {
          a.img_keep = keep_ptr.data();
          a.img_keep_n = keep_n.data();
        }
        const double ms = per_call_ms(b, out, 200, [&] { b.attention(a); });
        ops.push(Json::object()
                     .set("op", gathered ? "attention gathered (8% of 768 image slots)" : "attention full")
                     .set("M", M)
                     .set("keys", L + M)
                     .set("ms_per_call", ms));
      }
    }
  }
  return ops;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, backend = "cuda", golden_dir = std::string(SACCADE_SOURCE_DIR) + "/test/golden";
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--out" || a == "--backend" || a == "--golden" || a == "--repeats") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--out") out_path = v;
      if (a == "--backend") backend = v;
      if (a == "--golden") golden_dir = v;
      if (a == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    } else {
      std::fprintf(stderr, "usage: %s [--out FILE] [--backend cuda|cpu] [--golden DIR] [--repeats N]\n", argv[0]);
      return 2;
    }
  }
  unsetenv("SACCADE_BACKEND");
  Json result = Json::object();
  try {
    if (backend == "cuda") {
      std::string why;
      if (!saccade::make_cuda_backend(&why)) {
        std::printf("skipped: no CUDA device (%s)\n", why.c_str());
        result.set("skipped", true).set("reason", why);
        if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
        return 77;
      }
    }
    std::string why_golden;
    const gpucheck::GoldenSet golden = gpucheck::load_golden(golden_dir, &why_golden);
    std::vector<saccade::RegionInput> regions;
    std::string model_dir;
    int max_new = 0;
    if (golden.regions.empty()) {
      result.set("checkpoint", "tiny random checkpoint (" + why_golden + ")");
      model_dir = sctest::write_tiny_checkpoint(sctest::TinySpec{}, "saccade_cuda_bench");
      saccade::RegionInput in;
      in.id = "synthetic";
      in.kind = "text";
      in.width = 64;
      in.height = 32;
      for (int p = 0; p < 64 * 32; ++p) in.pixels.push_back(uint8_t((p * 37) % 256));
      regions.push_back(in);
      max_new = 64;
    } else {
      model_dir = golden.model_dir;
      result.set("checkpoint", model_dir);
      for (const gpucheck::GoldenRegion& g : golden.regions) regions.push_back(g.input);
      max_new = golden.max_new_tokens;
    }
    saccade::LoadOptions lo;
    lo.backend.name = backend;
    auto m = saccade::load_model(model_dir, lo);
    if (m->backend->name() != backend) throw saccade::EngineError("model loaded on " + m->backend->name());
    result.set("backend", m->backend->name()).set("device", m->backend->kernel_isa()).set("repeats", repeats)
        .set("max_new_tokens", max_new);
    std::printf("bench: %s (%s)\n", m->backend->name().c_str(), m->backend->kernel_isa().c_str());

    gpucheck::run_decode(*m, regions.front(), saccade::DecodeMode::AR, 0, false, 8);  // warm-up
    Json per_region = Json::array();
    for (const saccade::RegionInput& in : regions) per_region.push(bench_region(*m, in, max_new, repeats));
    result.set("regions", std::move(per_region));

    const saccade::ForwardCosts costs = saccade::measure_forward_costs(*m, saccade::calibration_widths(), 300, 5);
    Json widths = Json::array();
    for (size_t i = 0; i < costs.widths.size(); ++i)
      widths.push(Json::object().set("width", costs.widths[i]).set("ms", 1000.0 * costs.seconds[i]));
    result.set("forward_ms_by_width", std::move(widths));
    result.set("ops", bench_ops(*m->backend));
    if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
    std::printf("bench: done\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: error: %s\n", e.what());
    result.set("error", e.what());
    if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
    return 2;
  }
}
