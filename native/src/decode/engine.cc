#include "decode/engine.h"

#include <algorithm>

#include "decode/strategies.h"
#include "util/error.h"

namespace saccade {

namespace {
constexpr int kMaxAutoBlock = 64;
}

const char* token_source_name(TokenSource s) {
  switch (s) {
    case TokenSource::AR: return "ar";
    case TokenSource::Accepted: return "accepted";
    case TokenSource::Corrected: return "corrected";
    case TokenSource::Diffusion: return "diffusion";
    case TokenSource::Encoder: return "encoder";
  }
  return "ar";
}

void validate(const DecodeOptions& o, int num_layers) {
  if (o.block_size < 0 || o.block_size > 256) throw EngineError("blockSize must be 'auto' or in 1..256");
  if (!(o.tau_c >= 0 && o.tau_c <= 1)) throw EngineError("tauC must be in [0, 1]");
  if (o.refine_steps < 0 || o.refine_steps > 64) throw EngineError("refineSteps must be in 0..64");
  if (!(o.temperature >= 0 && o.temperature <= 100)) throw EngineError("temperature must be >= 0");
  if (!(o.top_p > 0 && o.top_p <= 1)) throw EngineError("topP must be in (0, 1]");
  if (o.max_new_tokens < 1) throw EngineError("maxNewTokens must be >= 1");
  if (o.batch_size < 1 || o.batch_size > 64) throw EngineError("batchSize must be in 1..64");
  if (o.fixation.enabled) {
    if (o.fixation.warmup_steps < 1) throw EngineError("fixation.warmupSteps must be >= 1");
    if (o.fixation.focal_layers < 1 || o.fixation.focal_layers > num_layers)
      throw EngineError("fixation.focalLayers must be in 1..number of decoder layers");
    if (!(o.fixation.keep_ratio > 0 && o.fixation.keep_ratio <= 1)) throw EngineError("fixation.keepRatio must be in (0, 1]");
  }
}

std::vector<int> calibration_widths() { return {1, 2, 3, 4, 6, 8, 12, 16, 24, 33, 48, 65}; }

namespace {
// The model's forward costs by width, measured on first use.
const ForwardCosts& model_costs(Model& m, ModelMemory* memory, Sequence& first) {
  if (memory->costs.widths.empty())
    memory->costs = measure_forward_costs(m, calibration_widths(), std::max(64, first.cache().len), 4);
  return memory->costs;
}

// Decodes one group of regions by the options' strategy, then prices what plain AR would have taken.
void decode_group(DecodeContext& ctx, const std::vector<Sequence*>& seqs, ModelMemory* memory, bool auto_block) {
  if (ctx.opts.mode == DecodeMode::Spec || ctx.opts.mode == DecodeMode::Mtp)
    ctx.costs = &model_costs(ctx.model, memory, *seqs[0]);
  switch (ctx.opts.mode) {
    case DecodeMode::AR: decode_ar(ctx, seqs); break;
    case DecodeMode::Mtp: {
      std::unique_ptr<MtpSizer> sizer;
      if (auto_block) {
        const ForwardCosts& costs = model_costs(ctx.model, memory, *seqs[0]);
        // Before any pass was timed, a head pass is taken to cost what one trunk layer does at width 1.
        sizer = std::make_unique<MtpSizer>(costs, kMtpDrafts, costs.at(1) / ctx.model.cfg.text.num_layers,
                                           memory->mtp[seqs[0]->kind()]);
      }
      decode_mtp(ctx, seqs, sizer.get());
      if (sizer)
        for (Sequence* seq : seqs) memory->mtp[seq->kind()] = sizer->memory();
      break;
    }
    case DecodeMode::Diffusion: decode_diffusion(ctx, *seqs[0]); break;
    case DecodeMode::Spec: {
      std::unique_ptr<BlockSizer> sizer;
      // A page's text lines come in batches of their own; a batch of mixed kinds learns as its first.
      if (auto_block)
        sizer = std::make_unique<BlockSizer>(model_costs(ctx.model, memory, *seqs[0]), kMaxAutoBlock,
                                             memory->speculation[seqs[0]->kind()]);
      decode_self_spec(ctx, seqs, sizer.get());
      if (sizer)
        for (Sequence* seq : seqs) memory->speculation[seq->kind()] = sizer->memory();
      break;
    }
  }
  if (ctx.opts.mode == DecodeMode::AR) {
    for (Sequence* seq : seqs) seq->stats().ar_estimate_ms = seq->stats().decode_ms;
  } else if (ctx.costs) {
    // The forwards AR would make: one per committed token, and the one that reads the end of text; priced by
    // the cost model, then scaled by what this decode's verifying rounds really took against their model
    // (the per-step work the model leaves out, such as fixation and picking, is in both).
    std::vector<int> steps;
    for (Sequence* seq : seqs) steps.push_back(seq->stats().committed + 1);
    const std::vector<double> ms = ar_time_estimate(*ctx.costs, steps);
    for (size_t i = 0; i < seqs.size(); ++i) {
      const RegionStats& s = seqs[i]->stats();
      seqs[i]->stats().ar_estimate_ms = s.modelled_ms > 0 ? ms[i] * s.verify_ms / s.modelled_ms : 0;
    }
  }
}

}  // namespace

DecodeResult decode_regions(Model& m, const std::vector<RegionInput>& regions, const DecodeOptions& o,
                            EventSink& sink, const std::atomic<bool>& cancel, ModelMemory* memory) {
  validate(o, m.cfg.text.num_layers);
  if (m.cfg.mask_token_id < 0 && (o.mode == DecodeMode::Spec || o.mode == DecodeMode::Diffusion))
    throw EngineError(std::string("mode ") + (o.mode == DecodeMode::Spec ? "spec" : "diffusion") +
                      " needs a checkpoint that drafts by masked diffusion; a plain GLM-OCR folder decodes with "
                      "mode ar or mtp until training/glm_ocr/convert_dual.py converts it");
  DecodeResult result;
  Decoder dec(m);
  const bool auto_block = (o.mode == DecodeMode::Spec || o.mode == DecodeMode::Mtp) && o.block_size == 0;
  const int max_block = o.mode == DecodeMode::AR  ? 0
                        : o.mode == DecodeMode::Mtp ? (o.block_size > 0 ? o.block_size : kMtpDrafts)
                        : auto_block                ? kMaxAutoBlock
                        : o.block_size > 0       ? o.block_size
                                                 : m.cfg.diffusion_block_size;
  if (o.mode == DecodeMode::Mtp && !m.mtp)
    throw EngineError("mode mtp needs a model with an MTP head; this one has none");
  // A self-speculative forward holds the pending token, up to B - 1 guesses and B masks; an MTP round the
  // pending token and k drafts, the head's chain k - 1 scratch slots after the committed ones.
  const int lookahead = o.mode == DecodeMode::Spec || o.mode == DecodeMode::Mtp ? 2 * max_block : max_block;
  DecodeContext ctx{m, dec, o, sink, cancel, Rng(o.seed)};
  const size_t group = o.mode == DecodeMode::Diffusion ? 1 : size_t(o.batch_size);
  for (size_t first = 0; first < regions.size() && !cancel.load(); first += group) {
    std::vector<std::unique_ptr<Sequence>> owned;
    std::vector<Sequence*> seqs;  // those the strategy decodes
    for (size_t i = first; i < std::min(regions.size(), first + group); ++i) {
      const auto learnt = memory->image_share.find(regions[i].kind);
      owned.push_back(std::make_unique<Sequence>(m, dec, regions[i], o, lookahead,
                                                 learnt == memory->image_share.end() ? nullptr : &learnt->second));
      Sequence& seq = *owned.back();
      Event start{};
      start.type = Event::Type::RegionStart;
      start.region_id = seq.id();
      start.kind = seq.kind();
      start.grid_rows = seq.grid_rows();
      start.grid_cols = seq.grid_cols();
      start.image_tokens = seq.image_tokens();
      sink.emit(std::move(start));
      if (seq.read_by_encoder())
        seq.commit_encoder_reading(sink);
      else
        seqs.push_back(&seq);
    }

    if (!seqs.empty()) decode_group(ctx, seqs, memory, auto_block);
    for (const auto& owned_seq : owned) {
      Sequence* seq = owned_seq.get();
      if (FixationController* fix = seq->fixation()) {
        seq->stats().visual_token_fraction = fix->visual_token_fraction();
        if (const std::vector<double>* share = fix->measured_share())
          memory->image_share.emplace(seq->kind(), *share);  // the kind's first warm-up decides
      }
      RegionResult r{seq->id(), seq->text(), seq->output(), seq->stats()};
      if (seq->done()) {
        Event end{};
        end.type = Event::Type::RegionEnd;
        end.region_id = r.id;
        end.text = r.text;
        end.stats = r.stats;
        sink.emit(std::move(end));
      }
      result.regions.push_back(std::move(r));
    }
  }
  result.cancelled = cancel.load();
  return result;
}

}  // namespace saccade
