// GLM-OCR against transformers on the tiny random checkpoint (test/golden/glm_ocr/README.md): the image
// processor, the vision tower, the prompt, prefill and AR step logits, greedy ids, the MTP layer's logits and
// drafts, and AR == MTP decoding through the engine's strategies; then the loader's refusals.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "backend/cpu/kernels.h"
#include "collect_events.h"
#include "decode/engine.h"
#include "decode/sampling.h"
#include "model/bpe_tokenizer.h"
#include "model/decoder.h"
#include "model/glm_ocr/image_processor.h"
#include "model/glm_ocr/prompt.h"
#include "model/glm_ocr/tokens.h"
#include "model/glm_ocr/vision.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/json.h"
#include "util/mapped_file.h"
#include "util/utf8.h"

using namespace saccade;

namespace {

const std::string kGolden = SACCADE_SOURCE_DIR "/test/golden/glm_ocr";
const char* const kKinds[] = {"text", "table", "formula"};
constexpr float kTol = 1e-3f;  // of the reference row's largest magnitude (the README's suggestion)

struct Golden {
  Json index;
  std::unique_ptr<Model> model;
  double load_ms = 0;
};

Golden& golden() {
  static std::unique_ptr<Golden> g = [] {
    auto out = std::make_unique<Golden>();
    out->index = Json::parse(read_text_file(kGolden + "/index.json", kMaxTokenizerBytes));
    LoadOptions lo;
    lo.backend.threads = 2;
    const auto t0 = std::chrono::steady_clock::now();
    out->model = load_model(kGolden + "/tiny", lo);
    out->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }();
  return *g;
}

std::vector<int64_t> shape(const Json& entry) {
  std::vector<int64_t> s;
  for (const Json& d : entry.at("shape", "").items("shape")) s.push_back(d.integer("shape"));
  return s;
}

template <class T>
std::vector<T> read_array(const Json& entry) {
  const std::string bytes = sctest::read_file(kGolden + "/" + entry.at("file", "").str("file"));
  size_t n = 1;
  for (int64_t d : shape(entry)) n *= size_t(d);
  CHECK_MSG(bytes.size() == n * sizeof(T), entry.at("file", "").str("file") << " has the wrong size");
  std::vector<T> v(n);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

std::vector<int> ints(const Json& j) {
  std::vector<int> v;
  for (const Json& x : j.items("ids")) v.push_back(int(x.integer("ids")));
  return v;
}

// max |got - ref| over max |ref|, for n values from each.
float relative(const float* got, const float* ref, size_t n) {
  float diff = 0, scale = 1e-6f;
  for (size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::fabs(got[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return diff / scale;
}

struct Case {
  std::string name;
  const Json* entry;
  int w, h;
  std::vector<uint8_t> rgb;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& kv : golden().index.at("cases", "").members("cases")) {
    const Json& img = kv.second.at("image", "");
    const std::vector<int64_t> s = shape(img);
    out.push_back({kv.first, &kv.second, int(s[1]), int(s[0]), read_array<uint8_t>(img)});
  }
  return out;
}

RegionInput region(const Case& c, const std::string& kind) {
  RegionInput in;
  in.id = c.name + "." + kind;
  in.kind = kind;
  in.width = c.w;
  in.height = c.h;
  in.channels = 3;
  in.pixels = c.rgb;
  return in;
}

DecodeOptions greedy(DecodeMode mode, int block, int max_new) {
  DecodeOptions o;
  o.mode = mode;
  o.block_size = block;
  o.max_new_tokens = max_new;
  o.fixation.enabled = false;
  o.repeat_guard = false;  // the reference decodes without one
  return o;
}

// The reference's greedy ids up to the engine's stop: the first EOS, kept.
std::vector<int> until_eos(const Model& m, std::vector<int> ids) {
  const std::vector<int>& eos = m.cfg.eos_token_ids;
  for (size_t i = 0; i < ids.size(); ++i)
    if (std::find(eos.begin(), eos.end(), ids[i]) != eos.end()) {
      ids.resize(i + 1);
      break;
    }
  return ids;
}

struct NullSink final : EventSink {
  void emit(Event&&) override {}
};

}  // namespace

TEST(glm_ocr_tiny_folder_loads_bf16) {
  Golden& g = golden();
  Model& m = *g.model;
  CHECK(m.glm && m.mtp && m.layers.size() == 2 && m.glm->vision.blocks.size() == 2);
  CHECK(m.weight_dtype == "BF16");
  CHECK(m.lm_head.format == WeightFormat::BF16 && m.layers[0].q.format == WeightFormat::BF16);
  CHECK(m.glm->vision.patch_embed.format == WeightFormat::BF16);
  CHECK(m.cfg.eos_token_ids == std::vector<int>({440, 447}));
  std::printf("     tiny folder: %zu parameters, loaded in %.1f ms\n", m.parameter_count, g.load_ms);
}

TEST(glm_ocr_image_processor_matches_reference) {
  const glm_ocr::ProcessorConfig& pc = golden().model->glm->cfg.processor;
  for (const Case& c : cases()) {
    const Json& e = *c.entry;
    const std::vector<int64_t> rs = shape(e.at("resized", ""));
    int H, W;
    glm_ocr::smart_resize(pc, c.h, c.w, &H, &W);
    CHECK_MSG(H == rs[0] && W == rs[1], c.name << " resized to " << W << "x" << H);
    CHECK_MSG(glm_ocr::resize_bicubic(c.rgb.data(), c.w, c.h, W, H) == read_array<uint8_t>(e.at("resized", "")),
              c.name << " resized pixels differ from Pillow's");
    const glm_ocr::ProcessedImage im = glm_ocr::process_image(pc, c.rgb.data(), c.w, c.h);
    const std::vector<int> grid = ints(e.at("image_grid_thw", ""));
    CHECK(grid == std::vector<int>({1, im.grid_h, im.grid_w}));
    const std::vector<float> ref = read_array<float>(e.at("pixel_values", ""));
    CHECK(im.pixel_values.size() == ref.size());
    float d = 0;
    for (size_t i = 0; i < ref.size(); ++i) d = std::max(d, std::fabs(im.pixel_values[i] - ref[i]));
    std::printf("     %s pixel_values max |diff| %.1e\n", c.name.c_str(), double(d));
    CHECK_MSG(d <= 1e-6f, c.name << " pixel_values differ by " << d);
  }
}

TEST(glm_ocr_vision_tower_matches_reference) {
  Model& m = *golden().model;
  for (const Case& c : cases()) {
    const Json& e = *c.entry;
    const glm_ocr::ProcessedImage im = glm_ocr::process_image(m.glm->cfg.processor, c.rgb.data(), c.w, c.h);
    glm_ocr::VisionStages st;
    const Buffer out = glm_ocr::encode_image(m, im, &st);
    std::vector<float> embeds(out.size());
    m.backend->download(embeds.data(), out.data(), embeds.size());
    const std::pair<const char*, const std::vector<float>*> stages[] = {{"vision_patch_embeds", &st.patch_embeds},
                                                                        {"vision_post_layernorm", &st.post_layernorm},
                                                                        {"vision_downsample", &st.downsample},
                                                                        {"image_embeds", &embeds}};
    std::printf("     %s", c.name.c_str());
    for (const auto& [key, got] : stages) {
      const std::vector<float> ref = read_array<float>(e.at(key, ""));
      CHECK_MSG(got->size() == ref.size(), c.name << " " << key << " has " << got->size() << " values");
      const float d = relative(got->data(), ref.data(), ref.size());
      std::printf(" %s %.1e", key, double(d));
      CHECK_MSG(d < kTol, c.name << " " << key << " differs by " << d << " of its largest value");
    }
    std::printf("\n");
  }
}

TEST(glm_ocr_prompt_ids_and_positions_match_reference) {
  Model& m = *golden().model;
  for (const Case& c : cases()) {
    const glm_ocr::ProcessedImage im = glm_ocr::process_image(m.glm->cfg.processor, c.rgb.data(), c.w, c.h);
    const int rows = im.grid_h / 2, cols = im.grid_w / 2;
    for (const char* kind : kKinds) {
      const Json& t = c.entry->at("tasks", "").at(kind, "tasks");
      CHECK(glm_ocr::render_prompt(kind) == t.at("prompt", "").str("prompt"));
      const std::vector<int> ids = glm_ocr::prompt_ids(m, kind, rows * cols);
      CHECK_MSG(ids == ints(t.at("input_ids", "")), c.name << "." << kind << " prompt ids differ");
      const std::vector<Pos3> pos = glm_ocr::rope_index(ids, m.cfg.image_token_id, rows, cols);
      const auto& axes = t.at("position_ids", "").items("position_ids");
      for (size_t i = 0; i < ids.size(); ++i)
        CHECK_MSG(pos[i].t == axes[0].items("t")[i].integer("t") && pos[i].h == axes[1].items("h")[i].integer("h") &&
                      pos[i].w == axes[2].items("w")[i].integer("w"),
                  c.name << "." << kind << " position of row " << i);
      const int delta = int(t.at("rope_delta", "").integer("rope_delta"));
      CHECK(pos.back().t + 1 == int(ids.size()) + delta);  // the first generated row's position
    }
  }
}

// Prefill, then greedy steps fed with the reference's ids: the prompt's last row and eight AR steps' logits,
// and sixteen argmax ids.
TEST(glm_ocr_prefill_and_ar_step_logits_match_reference) {
  Model& m = *golden().model;
  const int V = m.cfg.text.vocab_size;
  Decoder dec(m);
  float worst = 0;
  for (const Case& c : cases())
    for (const char* kind : kKinds) {
      const Json& t = c.entry->at("tasks", "").at(kind, "tasks");
      const std::string name = c.name + "." + kind;
      const std::vector<int> greedy_ids = ints(t.at("greedy_ids", ""));
      Sequence seq(m, dec, region(c, kind), greedy(DecodeMode::AR, 0, 64), 1);
      std::vector<int> prompt = seq.prefill_tokens();
      prompt.push_back(seq.pending());
      CHECK_MSG(prompt == ints(t.at("input_ids", "")), name << " prompt ids differ");
      const std::vector<float> prefill = read_array<float>(t.at("prefill_last_logits", ""));
      const std::vector<float> steps = read_array<float>(t.at("ar_step_logits", ""));
      int token = seq.pending();
      for (size_t k = 0; k < greedy_ids.size(); ++k) {
        const int L = seq.cache().len;
        const std::vector<float> logits = seq.forward({{token, L, L + 1}});
        seq.cache().len = L + 1;
        const float* ref = k == 0 ? prefill.data() : k <= 8 ? steps.data() + (k - 1) * size_t(V) : nullptr;
        if (ref) {
          const float d = relative(logits.data(), ref, size_t(V));
          worst = std::max(worst, d);
          CHECK_MSG(d < kTol, name << " logits of step " << k << " differ by " << d << " of the largest");
        }
        CHECK_MSG(argmax(logits.data(), V) == greedy_ids[k], name << " greedy id " << k);
        token = greedy_ids[k];
      }
    }
  std::printf("     prefill and AR step logits: max |diff| %.1e of the row's largest |logit|\n", double(worst));
}

// The MTP layer over the prompt and seven fed greedy tokens, and a chain of four drafts from the prompt's last
// row, against the reference (reference_mtp.py).
TEST(glm_ocr_mtp_logits_and_drafts_match_reference) {
  Model& m = *golden().model;
  const int V = m.cfg.text.vocab_size, D = m.cfg.text.hidden_size;
  Decoder dec(m);
  for (const Case& c : cases()) {
    const Json& t = c.entry->at("tasks", "").at("text", "tasks");
    const Json& mt = t.at("mtp", "");
    const std::vector<int> ids = ints(t.at("input_ids", "")), greedy_ids = ints(t.at("greedy_ids", ""));
    const int L = int(ids.size());
    Sequence seq(m, dec, region(c, "text"), greedy(DecodeMode::Mtp, 4, 64), 8);
    // The trunk's normed hidden states of rows 0 .. L + 6: the prefill's, then the prompt's last row and the
    // greedy tokens 0..6 fed one at a time.
    std::vector<float> hidden = seq.prefill_hidden();
    int token = seq.pending();
    for (int k = 0; k < 8; ++k) {
      std::vector<std::vector<float>> h;
      const int at = seq.cache().len;
      forward_batch(dec, {&seq}, {{{token, at, at + 1}}}, &h);
      seq.cache().len = at + 1;
      hidden.insert(hidden.end(), h[0].begin(), h[0].end());
      token = greedy_ids[size_t(k)];
    }
    std::vector<int> next(ids.begin() + 1, ids.end());  // row i reads the token of row i + 1
    next.insert(next.end(), greedy_ids.begin(), greedy_ids.begin() + 8);

    auto head_pass = [&](KvCache& cache, int first, int n, const float* from, std::vector<float>* out,
                         const std::vector<int>& tokens) {
      Segment s;
      s.cache = &cache;
      s.first_slot = first;
      s.tokens = tokens;
      for (int i = 0; i < n; ++i) {
        s.pos.push_back(seq.pos_of(first + i));
        s.key_limit.push_back(first + i + 1);
      }
      if (first == 0) s.image_embeds = seq.image_embeds();
      s.mtp_hidden = from;
      s.hidden_out = out;
      std::vector<Segment> segs{s};
      return dec.forward_mtp(segs);
    };
    const int rows = L + 7;
    KvCache all = make_kv_cache(m, rows + 1, 1);
    std::vector<float> y;
    const std::vector<float> logits =
        head_pass(all, 0, rows, hidden.data(), &y, std::vector<int>(next.begin(), next.begin() + rows));
    const std::vector<float> ref = read_array<float>(mt.at("logits", ""));
    const float d = relative(logits.data() + size_t(L - 1) * V, ref.data(), ref.size());
    std::printf("     %s MTP logits %.1e", c.name.c_str(), double(d));
    CHECK_MSG(d < kTol, c.name << " MTP logits differ by " << d);

    KvCache chain = make_kv_cache(m, L + 4, 1);
    std::vector<float> out;
    std::vector<float> step = head_pass(chain, 0, L, hidden.data(), &out, std::vector<int>(next.begin(), next.begin() + L));
    chain.len = L;
    const std::vector<float> ref_drafts = read_array<float>(mt.at("draft_logits", ""));
    const std::vector<int> ref_ids = ints(mt.at("draft_ids", ""));
    float dd = 0;
    for (int j = 0; j < 4; ++j) {
      const float* last = step.data() + step.size() - size_t(V);
      dd = std::max(dd, relative(last, ref_drafts.data() + size_t(j) * V, size_t(V)));
      const int id = argmax(last, V);
      CHECK_MSG(id == ref_ids[size_t(j)], c.name << " MTP draft " << j);
      const std::vector<float> from(out.end() - D, out.end());
      step = head_pass(chain, L + j, 1, from.data(), &out, {id});
    }
    std::printf(" drafts %.1e\n", double(dd));
    CHECK_MSG(dd < kTol, c.name << " MTP draft logits differ by " << dd);
  }
}

// Through decode_regions: AR greedy gives the reference's ids (to the first EOS), and MTP speculation with the
// checkpoint's layer gives exactly AR's, for fixed and automatic draft counts; fixation runs over the image
// slots and leaves greedy output alone.
TEST(glm_ocr_ar_and_mtp_decoding_give_the_reference_ids) {
  Model& m = *golden().model;
  std::atomic<bool> cancel{false};
  ModelMemory memory;
  int accepted = 0;
  for (const Case& c : cases())
    for (const char* kind : kKinds) {
      const Json& t = c.entry->at("tasks", "").at(kind, "tasks");
      const std::string name = c.name + "." + kind;
      const std::vector<int> want = until_eos(m, ints(t.at("greedy_ids", "")));
      NullSink null;
      const auto ar = decode_regions(m, {region(c, kind)}, greedy(DecodeMode::AR, 0, 16), null, cancel, &memory);
      CHECK_MSG(ar.regions[0].tokens == want, name << " AR ids differ from the reference");
      for (int k : {1, 3, 4, 0}) {
        sctest::Collect sink;
        const auto mtp = decode_regions(m, {region(c, kind)}, greedy(DecodeMode::Mtp, k, 16), sink, cancel, &memory);
        CHECK_MSG(mtp.regions[0].tokens == want, name << " MTP (" << k << " drafts) != AR");
        for (const Event& e : sink.events)
          if (e.type == Event::Type::Round) accepted += e.accepted;
      }
      DecodeOptions fix = greedy(DecodeMode::AR, 0, 16);
      fix.fixation.enabled = true;
      fix.fixation.warmup_steps = 2;
      fix.fixation.focal_layers = 1;
      sctest::Collect sink;
      const auto fixed = decode_regions(m, {region(c, kind)}, fix, sink, cancel, &memory);
      CHECK_MSG(fixed.regions[0].tokens == want, name << " AR with fixation differs");
      const Event& start = sink.events.front();
      CHECK(start.type == Event::Type::RegionStart && start.image_tokens == start.grid_rows * start.grid_cols);
    }
  std::printf("     MTP drafts accepted over all runs: %d\n", accepted);
}

// Region text is what the tokenizer library decodes (skipping special tokens); token events carry whole
// characters only, holding back the bytes of one that later tokens finish.
TEST(glm_ocr_text_and_token_events_are_whole_characters) {
  Model& m = *golden().model;
  const BpeTokenizer bpe = BpeTokenizer::load(kGolden + "/tiny/tokenizer.json");
  std::atomic<bool> cancel{false};
  ModelMemory memory;
  int held = 0;
  for (const Case& c : cases()) {
    sctest::Collect sink;
    const auto r = decode_regions(m, {region(c, "text")}, greedy(DecodeMode::AR, 0, 48), sink, cancel, &memory);
    std::vector<int> known;  // the random model also picks the padded ids past the tokenizer's, which decode to nothing
    for (int id : r.regions[0].tokens)
      if (id < bpe.vocab_size()) known.push_back(id);
    CHECK(r.regions[0].text == bpe.decode(known, true));
    std::string streamed;
    for (const Event& e : sink.events)
      if (e.type == Event::Type::Token) {
        std::vector<char32_t> cps;
        std::vector<uint32_t> offsets;
        decode_utf8(e.text, cps, offsets);  // throws on half a character
        streamed += e.text;
        held += e.text != m.tokenizer.piece(e.id);
      }
    CHECK_MSG(r.regions[0].text.rfind(streamed, 0) == 0, c.name << " streamed text is not the region's text");
  }
  std::printf("     token events whose text is not their own token's bytes: %d\n", held);
}

TEST(glm_ocr_plain_folder_refuses_self_spec_and_diffusion) {
  Model& m = *golden().model;
  const Case c = cases()[0];
  std::atomic<bool> cancel{false};
  ModelMemory memory;
  NullSink sink;
  for (DecodeMode mode : {DecodeMode::Spec, DecodeMode::Diffusion})
    CHECK_THROWS_WITH(decode_regions(m, {region(c, "text")}, greedy(mode, 4, 8), sink, cancel, &memory),
                      "needs a checkpoint that drafts by masked diffusion; a plain GLM-OCR folder decodes with "
                      "mode ar or mtp until training/glm_ocr/convert_dual.py converts it");
  RegionInput grey = region(c, "text");
  grey.channels = 1;
  grey.pixels.resize(size_t(c.w) * c.h);
  const auto r = decode_regions(m, {grey}, greedy(DecodeMode::AR, 0, 4), sink, cancel, &memory);
  CHECK(r.regions[0].tokens.size() == 4);
}

// bf16 panels widen exactly, so a GEMM over them equals the fp32 GEMM over the same values bit for bit.
TEST(glm_ocr_bf16_panels_give_the_fp32_result) {
  const int M = 5, N = 37, K = 29;
  std::vector<float> w(size_t(N) * K), x(size_t(M) * K), b(static_cast<size_t>(N));
  uint32_t s = 7;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return float(int(s >> 9) - (1 << 22)) / float(1 << 22);
  };
  for (float& v : w) {
    uint32_t u;
    const float f = next() * 1e-3f;  // tiny values: bf16 numbers that fp16 cannot hold
    std::memcpy(&u, &f, 4);
    u &= 0xFFFF0000u;
    std::memcpy(&v, &u, 4);
  }
  for (float& v : x) v = next();
  for (float& v : b) v = next();
  for (const cpu::Kernels* k : {&cpu::kernels_generic(), &cpu::best_kernels()}) {
    const int panels = (N + k->panel - 1) / k->panel;
    std::vector<float> packed(size_t(panels) * k->panel * K);
    std::vector<uint16_t> packed_bf(packed.size());
    k->pack(w.data(), N, K, packed.data());
    k->pack_bf16(w.data(), N, K, packed_bf.data());
    std::vector<float> y(size_t(M) * N), y_bf(y.size());
    k->gemm(x.data(), M, K, packed.data(), b.data(), y.data(), N, 0, panels);
    k->gemm_bf16(x.data(), M, K, packed_bf.data(), b.data(), y_bf.data(), N, 0, panels);
    CHECK_MSG(std::memcmp(y.data(), y_bf.data(), y.size() * sizeof(float)) == 0, k->isa << " bf16 GEMM differs");
  }
}

namespace {

// A copy of the tiny folder under /tmp, to break.
std::string tiny_copy(const std::string& name) {
  const std::string dir = "/tmp/saccade_glm_" + name;
  ::mkdir(dir.c_str(), 0755);
  for (const char* f : {"config.json", "generation_config.json", "model-00001-of-00002.safetensors",
                        "model-00002-of-00002.safetensors", "model.safetensors.index.json",
                        "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"})
    sctest::write_file(dir + "/" + f, sctest::read_file(kGolden + "/tiny/" + f));
  return dir;
}

// Replaces every occurrence of `from`.
void edit(const std::string& path, const std::string& from, const std::string& to) {
  std::string s = sctest::read_file(path);
  CHECK_MSG(s.find(from) != std::string::npos, path << " has no " << from);
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  sctest::write_file(path, s);
}

std::unique_ptr<Model> load(const std::string& dir) {
  LoadOptions lo;
  lo.backend.threads = 1;
  return load_model(dir, lo);
}

}  // namespace

TEST(glm_ocr_loader_refuses_what_it_does_not_implement) {
  const std::string dir = tiny_copy("refuse");
  CHECK(load(dir)->glm);

  std::remove((dir + "/model-00002-of-00002.safetensors").c_str());
  CHECK_THROWS_WITH(load(dir), "model.safetensors.index.json names shard model-00002-of-00002.safetensors, which "
                               "is not in the folder");
  sctest::write_file(dir + "/model-00002-of-00002.safetensors",
                     sctest::read_file(kGolden + "/tiny/model-00002-of-00002.safetensors"));

  const std::string cfg = dir + "/config.json", original = sctest::read_file(cfg);
  edit(cfg, "\"intermediate_size\": 288", "\"intermediate_size\": 290");
  CHECK_THROWS_WITH(load(dir), "model-00001-of-00002.safetensors: tensor model.language_model.layers.0.mlp.gate_up_proj"
                               ".weight has shape [576, 96], config.json implies [580, 96]");
  sctest::write_file(cfg, original);
  edit(cfg, "\"head_dim\": 32,", "\"head_dim\": 32, \"sliding_window\": 64,");
  CHECK_THROWS_WITH(load(dir), "config.json: text_config.sliding_window is not a field this engine implements");
  sctest::write_file(cfg, original);
  edit(cfg, "\"rope_type\": \"default\"", "\"rope_type\": \"yarn\"");
  CHECK_THROWS_WITH(load(dir), "config.json: text_config.rope_parameters.rope_type is yarn; this engine implements default");
  sctest::write_file(cfg, original);
  edit(cfg, "GlmOcrForConditionalGeneration", "Glm4vForConditionalGeneration");
  CHECK_THROWS_WITH(load(dir), "config.json: architectures must be [\"GlmOcrForConditionalGeneration\"]");
  sctest::write_file(cfg, original);
  edit(cfg, "\"num_nextn_predict_layers\": 1", "\"num_nextn_predict_layers\": 0");
  CHECK_THROWS_WITH(load(dir), "unexpected tensor model.language_model.layers.2.");
  sctest::write_file(cfg, original);

  const std::string pre = dir + "/preprocessor_config.json", pre_original = sctest::read_file(pre);
  edit(pre, "\"do_rescale\": true,", "\"do_rescale\": true, \"min_pixels\": 3136,");
  CHECK_THROWS_WITH(load(dir), "preprocessor_config.json: min_pixels is not a field this engine implements");
  sctest::write_file(pre, pre_original);

  edit(dir + "/tokenizer_config.json", "<|assistant|>\\n", "<|assistant|>");
  CHECK_THROWS_WITH(load(dir), "chat template: not GLM-OCR's");
}

namespace {

// What training/glm_ocr/convert_dual.py adds to config.json, with the tiny tokenizer's [MASK] (id 441).
const std::string kDualMode =
    "\"saccade_dual_mode\": {\"mask_token_id\": 441, \"block_size\": 32, \"diffusion_predicts\": \"own position\", "
    "\"mask_attention\": \"bidirectional within a block, causal to earlier blocks\"}, \"architectures\"";

}  // namespace

// A dual-mode folder runs the self-speculative and diffusion strategies our own model runs: its mask rows
// take the text positions after the committed ones, and greedy self-spec gives AR's ids exactly, for fixed
// and automatic block sizes (the tiny weights are random, so drafts are mostly rejected: what is checked is
// the protocol, not the acceptance). A conversion with other conventions is refused in one line.
TEST(glm_ocr_dual_mode_folder_self_speculates_exactly) {
  const std::string dir = tiny_copy("dual");
  edit(dir + "/config.json", "\"architectures\"", kDualMode);
  const std::unique_ptr<Model> m = load(dir);
  CHECK(m->cfg.mask_token_id == 441 && m->cfg.diffusion_block_size == 32);
  std::atomic<bool> cancel{false};
  ModelMemory memory;
  int accepted = 0;
  for (const Case& c : cases())
    for (const char* kind : kKinds) {
      const std::string name = c.name + "." + kind;
      NullSink null;
      const auto ar = decode_regions(*m, {region(c, kind)}, greedy(DecodeMode::AR, 0, 24), null, cancel, &memory);
      for (int B : {2, 4, 8, 0}) {
        sctest::Collect sink;
        const auto spec = decode_regions(*m, {region(c, kind)}, greedy(DecodeMode::Spec, B, 24), sink, cancel, &memory);
        CHECK_MSG(spec.regions[0].tokens == ar.regions[0].tokens, name << " self-spec (B=" << B << ") != AR");
        for (const Event& e : sink.events)
          if (e.type == Event::Type::Round) accepted += e.accepted;
      }
      const auto diff =
          decode_regions(*m, {region(c, kind)}, greedy(DecodeMode::Diffusion, 8, 24), null, cancel, &memory);
      CHECK_MSG(!diff.regions[0].tokens.empty() && diff.regions[0].tokens.size() <= 24, name << " diffusion");
    }
  std::printf("     self-spec guesses accepted over all runs: %d\n", accepted);

  edit(dir + "/config.json", "own position", "next position");
  CHECK_THROWS_WITH(load(dir), "config.json: saccade_dual_mode.diffusion_predicts is next position; this engine "
                               "implements own position");
  edit(dir + "/config.json", "next position", "own position");
  edit(dir + "/config.json", "\"mask_token_id\": 441", "\"mask_token_id\": 512");
  CHECK_THROWS_WITH(load(dir), "config.json: saccade_dual_mode.mask_token_id = 512 is out of range [0, 511]");
}
