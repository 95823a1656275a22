// GLM-OCR decoding speed on one backend (scripts/gpu-check.sh, docs/gpu-check.md), written as JSON:
//   - one synthetic page-sized grey image, greedy, a bounded number of new tokens, no repetition guard (a
//     random checkpoint loops): AR, MTP (3 drafts and auto) and AR with visual fixation, tokens per second
//     of the decode phase, encode and prefill times;
//   - decoder forward seconds by width over the page's context, the curve that decides whether a block
//     draft can pay on this backend.
// Meant for the full-size random checkpoint from training/glm_ocr/make_full_random.py, whose speed is the
// real one's (its tokens are not).
// Exit status: 0 done, 2 error.
//
// Usage: saccade_glm_bench FOLDER [--out results.json] [--backend cpu|cuda] [--width W] [--height H]
//                          [--max-new N]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "decode/block_size.h"
#include "decode/engine.h"
#include "util/error.h"

using namespace saccade;

namespace {

struct NullSink final : EventSink {
  void emit(Event&&) override {}
};

// Dark strokes in text-line bands on paper grey: enough structure that the image tokens differ.
RegionInput page(int width, int height) {
  RegionInput in;
  in.id = "page";
  in.kind = "text";
  in.width = width;
  in.height = height;
  in.pixels.resize(size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool line = (y % 28) >= 6 && (y % 28) < 20 && x > 40 && x < width - 40;
      const bool stroke = line && ((x * 7 + (y / 28) * 13) % 11) < 3;
      in.pixels[size_t(y) * width + x] = uint8_t(stroke ? 30 : 235);
    }
  return in;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n') ? ' ' : c;
  }
  return out + "\"";
}

struct Mode {
  const char* name;
  DecodeMode mode;
  int drafts;  // MTP drafts per round, 0 auto
  bool fixation;
};

void write(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::ofstream f(path);
  f << text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string folder, out_path, backend = "cpu";
  int width = 768, height = 1024, max_new = 64;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--out" && has_value) out_path = argv[++i];
    else if (a == "--backend" && has_value) backend = argv[++i];
    else if (a == "--width" && has_value) width = std::atoi(argv[++i]);
    else if (a == "--height" && has_value) height = std::atoi(argv[++i]);
    else if (a == "--max-new" && has_value) max_new = std::atoi(argv[++i]);
    else if (folder.empty() && a[0] != '-') folder = a;
    else {
      std::fprintf(stderr, "usage: saccade_glm_bench FOLDER [--out F] [--backend cpu|cuda] [--width W] "
                           "[--height H] [--max-new N]\n");
      return 2;
    }
  }
  // Each mode's line as it finishes: a run cut short by its time limit still shows the modes it measured.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::ostringstream j;
  j << "{\n \"folder\": " << quoted(folder) << ",\n \"requested_backend\": " << quoted(backend);
  std::unique_ptr<Model> m;
  try {
    LoadOptions lo;
    lo.backend.name = backend;
    const auto t0 = std::chrono::steady_clock::now();
    m = load_model(folder, lo);
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    j << ",\n \"backend\": " << quoted(m->backend->name()) << ",\n \"device\": " << quoted(m->backend->kernel_isa())
      << ",\n \"parameters\": " << m->parameter_count << ",\n \"load_s\": " << load_s;
  } catch (const std::exception& e) {
    const std::string why = e.what();
    std::printf("glm bench: error: %s\n", why.c_str());
    j << ",\n \"status\": \"error\",\n \"error\": " << quoted(why) << "\n}\n";
    write(out_path, j.str());
    return 2;
  }
  try {
    const RegionInput in = page(width, height);
    std::ostringstream body;  // joined to j only when whole, so that an error still leaves valid JSON
    body << ",\n \"image\": [" << width << ", " << height << "],\n \"max_new_tokens\": " << max_new << ",\n \"modes\": {";
    const Mode modes[] = {{"ar", DecodeMode::AR, 0, false},
                          {"mtp_3_drafts", DecodeMode::Mtp, 3, false},
                          {"mtp_auto", DecodeMode::Mtp, 0, false},
                          {"ar_fixation", DecodeMode::AR, 0, true}};
    std::atomic<bool> cancel{false};
    ModelMemory memory;
    int generated = 0;
    double ar_tps = 0;
    bool first = true;
    for (const Mode& md : modes) {
      if (md.mode == DecodeMode::Mtp && !m->mtp) continue;
      DecodeOptions o;
      o.mode = md.mode;
      o.block_size = md.drafts;
      o.max_new_tokens = max_new;
      o.repeat_guard = false;
      o.fixation.enabled = md.fixation;
      o.fixation.keep_ratio = 0.1f;  // FastOCR's regime: a few per cent of the image per step
      NullSink sink;
      const auto r = decode_regions(*m, {in}, o, sink, cancel, &memory);
      const RegionStats& s = r.regions[0].stats;
      const double tps = s.decode_ms > 0 ? 1000.0 * s.tokens / s.decode_ms : 0;
      if (md.mode == DecodeMode::AR && !md.fixation) ar_tps = tps;
      generated = int(r.regions[0].tokens.size());
      std::printf("  %-14s %4d tokens %4d forwards  encode %8.1f ms  prefill %8.1f ms  decode %8.1f ms  %7.1f tok/s\n",
                  md.name, s.tokens, s.forwards, s.encode_ms, s.prefill_ms, s.decode_ms, tps);
      body << (first ? "" : ",") << "\n  " << quoted(md.name) << ": {\"tokens\": " << s.tokens << ", \"forwards\": "
        << s.forwards << ", \"encode_ms\": " << s.encode_ms << ", \"prefill_ms\": " << s.prefill_ms
        << ", \"decode_ms\": " << s.decode_ms << ", \"decode_tokens_per_s\": " << tps << ", \"speedup_vs_ar\": "
        << (ar_tps > 0 ? tps / ar_tps : 0.0) << ", \"visual_token_fraction\": " << s.visual_token_fraction << "}";
      first = false;
    }
    body << "\n },";
    // The page's prompt is about (width / 28) * (height / 28) image tokens plus a few text rows.
    const int context = (width / 28) * (height / 28) + 16 + generated;
    const ForwardCosts costs = measure_forward_costs(*m, calibration_widths(), context, 2);
    body << "\n \"forward_context\": " << context << ",\n \"forward_ms_by_width\": [";
    for (size_t i = 0; i < costs.widths.size(); ++i) {
      body << (i ? ", " : "") << "{\"width\": " << costs.widths[i] << ", \"ms\": " << 1000.0 * costs.seconds[i] << "}";
      std::printf("  forward width %2d: %8.2f ms\n", costs.widths[i], 1000.0 * costs.seconds[i]);
    }
    body << "],\n \"status\": \"done\"\n}\n";
    j << body.str();
    write(out_path, j.str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "glm bench: error: %s\n", e.what());
    j << ",\n \"status\": \"error\",\n \"error\": " << quoted(e.what()) << "\n}\n";
    write(out_path, j.str());
    return 2;
  }
}
