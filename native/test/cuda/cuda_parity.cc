// GPU check, part 1 (scripts/gpu-check.sh): the CUDA backend against the CPU backend.
//   1. every op on random data, within a tolerance;
//   2. the exactness rule on the GPU alone: rows are bit-identical whatever the width of the call;
//   3. whole models (a small random checkpoint, then the trained checkpoint on the golden regions): image
//      embeddings and first-forward logits within a tolerance, greedy AR ids equal to the CPU's and to the
//      golden files, and greedy self-spec ids equal to greedy AR ids on the GPU;
//   4. the page-analysis networks (assets/models/page-analysis) on their golden inputs: every output within a
//      tolerance of the CPU's.
// Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or an error, 77 no CUDA device (skipped).
//
// Usage: saccade_cuda_parity [--out results.json] [--ops-only | --no-golden] [--golden DIR] [--backend cuda|cpu]
// --no-golden stops after the random checkpoint (the host emulation is too slow for the trained model);
// --backend cpu runs the same checks CPU against CPU, to exercise this program itself.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/cuda_backend.h"
#include "golden_regions.h"
#include "model_runs.h"
#include "op_parity.h"
#include "page/page_nets.h"
#include "util/json.h"
#include "util/mapped_file.h"
#include "report.h"
#include "tiny_checkpoint.h"

using gpucheck::Json;

namespace {

constexpr double kLogitTolerance = 1e-4;        // engine on two backends: same fp32 math, other orders
constexpr double kGoldenLogitTolerance = 2e-3;  // engine against PyTorch (other kernels, other orders)

struct Counter {
  int failed = 0;
  Json checks = Json::array();
  void add(const std::string& name, bool pass, Json extra = Json::object()) {
    extra.set("name", name).set("pass", pass);
    checks.push(std::move(extra));
    if (!pass) {
      ++failed;
      std::fprintf(stderr, "FAIL %s\n", name.c_str());
    }
  }
};

double max_rel_diff(const std::vector<float>& ref, const std::vector<float>& test) {
  if (ref.size() != test.size()) return INFINITY;
  double max_abs = 0, ref_max = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(test[i])) return INFINITY;
    max_abs = std::max(max_abs, double(std::fabs(test[i] - ref[i])));
    ref_max = std::max(ref_max, double(std::fabs(ref[i])));
  }
  return max_abs / std::max(1.0, ref_max);
}

void close(Counter& c, const std::string& name, const std::vector<float>& ref, const std::vector<float>& test,
           double tol) {
  const double rel = max_rel_diff(ref, test);
  c.add(name, rel <= tol, Json::object().set("max_rel_diff", rel).set("tolerance", tol));
}

void same_ids(Counter& c, const std::string& name, const std::vector<int>& expected, const std::vector<int>& got) {
  c.add(name, expected == got,
        Json::object().set("expected", Json::list(expected)).set("got", Json::list(got)));
}

// The three page-analysis networks on both backends, on the generated page their goldens were cut from.
void page_nets_parity(const std::string& test_backend, Counter& c) {
  const std::string dir = std::string(SACCADE_SOURCE_DIR) + "/../assets/models/page-analysis";
  const std::string golden = std::string(SACCADE_SOURCE_DIR) + "/test/golden/page_nets";
  saccade::BackendOptions ro, to;
  ro.name = "cpu";
  to.name = test_backend;
  auto ref = saccade::load_page_nets(dir, ro);
  auto test = saccade::load_page_nets(dir, to);
  const saccade::Json index = saccade::Json::parse(saccade::read_text_file(golden + "/index.json", saccade::kMaxTokenizerBytes));
  for (const auto& [name, cases] : index.members("index")) {
    const auto& hw = cases.items(name)[0].at("image", name).items("image");
    const int h = int(hw[0].integer("h")), w = int(hw[1].integer("w"));
    std::ifstream f(golden + "/" + name + ".0.image.u8", std::ios::binary);
    std::vector<uint8_t> px((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (px.size() != size_t(h) * w) {
      c.add("page net " + name + ": golden input present", false);
      continue;
    }
    const auto a = saccade::run_page_net(ref->get(name), px.data(), h, w);
    const auto b = saccade::run_page_net(test->get(name), px.data(), h, w);
    for (size_t k = 0; k < a.size(); ++k) close(c, "page net " + name + " output " + std::to_string(k), a[k].data, b[k].data, 1e-4);
  }
}

struct RegionCase {
  saccade::RegionInput input;
  const gpucheck::GoldenRegion* golden = nullptr;
};

// Both backends on one checkpoint. Fixation runs are reported, not asserted: its top-k selection may break a
// near-tie differently when scores differ in the last bits.
void model_parity(const std::string& label, const std::string& dir, const std::string& test_backend,
                  const std::vector<RegionCase>& regions, int max_new, Counter& c, Json& runs) {
  saccade::LoadOptions lo;
  lo.backend.name = "cpu";
  auto ref = saccade::load_model(dir, lo);
  lo.backend.name = test_backend;
  auto test = saccade::load_model(dir, lo);
  if (test->backend->name() != test_backend) throw saccade::EngineError("model loaded on " + test->backend->name());
  const int B = test->cfg.diffusion_block_size, V = test->cfg.text.vocab_size;

  for (const RegionCase& r : regions) {
    const std::string p = label + " " + r.input.id + ": ";
    close(c, p + "image embeddings", gpucheck::image_embeds(*ref, r.input), gpucheck::image_embeds(*test, r.input),
          kLogitTolerance);
    const gpucheck::FirstForwards fr = gpucheck::first_forwards(*ref, r.input, B);
    const gpucheck::FirstForwards ft = gpucheck::first_forwards(*test, r.input, B);
    close(c, p + "prompt-row logits", fr.prompt_logits, ft.prompt_logits, kLogitTolerance);
    close(c, p + "draft forward logits [c, MASK x " + std::to_string(B) + "]", fr.draft_logits, ft.draft_logits,
          kLogitTolerance);
    if (r.golden)
      close(c, p + "prompt-row logits vs golden", r.golden->prefill_last_logits, ft.prompt_logits,
            kGoldenLogitTolerance);
    // Row 0 of the draft forward is the exact AR prediction after c; argmax equality is what decoding uses.
    c.add(p + "draft row 0 argmax CUDA == CPU",
          gpucheck::argmax(fr.draft_logits.data(), V) == gpucheck::argmax(ft.draft_logits.data(), V));

    using saccade::DecodeMode;
    const gpucheck::DecodeRun ar_ref = gpucheck::run_decode(*ref, r.input, DecodeMode::AR, 0, false, max_new);
    const gpucheck::DecodeRun ar = gpucheck::run_decode(*test, r.input, DecodeMode::AR, 0, false, max_new);
    const gpucheck::DecodeRun spec = gpucheck::run_decode(*test, r.input, DecodeMode::Spec, B, false, max_new);
    const gpucheck::DecodeRun spec_auto = gpucheck::run_decode(*test, r.input, DecodeMode::Spec, 0, false, max_new);
    same_ids(c, p + "greedy AR ids, test backend == CPU", ar_ref.ids, ar.ids);
    same_ids(c, p + "greedy self-spec ids (B=" + std::to_string(B) + ") == greedy AR ids", ar.ids, spec.ids);
    same_ids(c, p + "greedy self-spec ids (auto block) == greedy AR ids", ar.ids, spec_auto.ids);
    if (test->mtp) {
      const gpucheck::DecodeRun mtp = gpucheck::run_decode(*test, r.input, DecodeMode::Mtp, 3, false, max_new);
      const gpucheck::DecodeRun mtp_auto = gpucheck::run_decode(*test, r.input, DecodeMode::Mtp, 0, false, max_new);
      same_ids(c, p + "greedy MTP ids (3 drafts) == greedy AR ids", ar.ids, mtp.ids);
      same_ids(c, p + "greedy MTP ids (auto drafts) == greedy AR ids", ar.ids, mtp_auto.ids);
    }
    if (r.golden) {
      same_ids(c, p + "greedy AR ids == golden", r.golden->greedy_ar_ids, ar.ids);
      same_ids(c, p + "greedy self-spec ids == golden", r.golden->self_spec_ids, spec.ids);
    }
    const gpucheck::DecodeRun fix_ref = gpucheck::run_decode(*ref, r.input, DecodeMode::AR, 0, true, max_new);
    const gpucheck::DecodeRun fix = gpucheck::run_decode(*test, r.input, DecodeMode::AR, 0, true, max_new);
    runs.push(Json::object()
                  .set("region", p.substr(0, p.size() - 2))
                  .set("ar_tokens", int(ar.ids.size()))
                  .set("spec_rounds", spec.stats.rounds)
                  .set("spec_forwards", spec.stats.forwards)
                  .set("ar_forwards", ar.stats.forwards)
                  .set("fixation_ids_equal_cpu", fix.ids == fix_ref.ids)
                  .set("fixation_ids_equal_full_attention", fix.ids == ar.ids)
                  .set("fixation_visual_token_fraction", fix.stats.visual_token_fraction));
  }
}

saccade::RegionInput synthetic_region(int w, int h) {
  saccade::RegionInput in;
  in.id = "synthetic";
  in.kind = "text";
  in.width = w;
  in.height = h;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) in.pixels.push_back(uint8_t((x * 37 + y * 11 + (x / 5) * (y / 3) * 13) % 256));
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, backend = "cuda", golden_dir = std::string(SACCADE_SOURCE_DIR) + "/test/golden";
  bool ops_only = false, golden = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ops-only") {
      ops_only = true;
    } else if (a == "--no-golden") {
      golden = false;
    } else if ((a == "--out" || a == "--backend" || a == "--golden") && i + 1 < argc) {
      (a == "--out" ? out_path : a == "--backend" ? backend : golden_dir) = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--out FILE] [--ops-only | --no-golden] [--golden DIR] [--backend cuda|cpu]\n", argv[0]);
      return 2;
    }
  }
  // The backends are chosen here, explicitly; an inherited override would compare a backend with itself.
  unsetenv("SACCADE_BACKEND");

  Json result = Json::object();
  try {
    std::unique_ptr<saccade::Backend> ref = saccade::make_cpu_backend(0, false), test;
    std::string why;
    test = backend == "cpu" ? saccade::make_cpu_backend(0, false) : saccade::make_cuda_backend(&why);
    if (!test) {
      std::printf("skipped: no CUDA device (%s)\n", why.c_str());
      result.set("skipped", true).set("reason", why);
      if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
      return 77;
    }
    result.set("backend", test->name()).set("device", test->kernel_isa()).set("reference", ref->kernel_isa());
    std::printf("parity: %s (%s) against cpu (%s)\n", test->name().c_str(), test->kernel_isa().c_str(),
                ref->kernel_isa().c_str());

    Counter c;
    c.failed += gpucheck::op_parity(*ref, *test, c.checks);
    c.failed += gpucheck::width_independence(*test, c.checks);
    test.reset();  // the model runs load their own

    Json runs = Json::array();
    if (!ops_only) {
      sctest::TinySpec spec;
      const std::string tiny = sctest::write_tiny_checkpoint(spec, "saccade_cuda_parity");
      model_parity("tiny random checkpoint", tiny, backend, {{synthetic_region(64, 32), nullptr}}, 40, c, runs);
    }
    if (!ops_only && golden) {
      std::string why_golden;
      const gpucheck::GoldenSet set = gpucheck::load_golden(golden_dir, &why_golden);
      if (set.regions.empty()) {
        // The trained checkpoint is part of the GPU check's contract: its absence fails the check.
        c.add("golden regions present (" + why_golden + ")", false);
      } else {
        std::vector<RegionCase> cases;
        for (const gpucheck::GoldenRegion& g : set.regions) cases.push_back({g.input, &g});
        model_parity("golden", set.model_dir, backend, cases, set.max_new_tokens, c, runs);
      }
    }
    if (!ops_only) page_nets_parity(backend, c);
    result.set("failed", c.failed).set("checks", std::move(c.checks)).set("model_runs", std::move(runs));
    if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
    std::printf("parity: %d check(s) failed\n", c.failed);
    return c.failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parity: error: %s\n", e.what());
    result.set("error", e.what());
    if (!out_path.empty()) gpucheck::write_text_file(out_path, result.dump(1));
    return 2;
  }
}
