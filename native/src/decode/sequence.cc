#include "decode/sequence.h"

#include <algorithm>
#include <chrono>

#include "model/glm_ocr/prompt.h"
#include "model/image_preprocess.h"
#include "model/region_prompt.h"
#include "model/vision.h"
#include "util/error.h"
#include "util/utf8.h"

namespace saccade {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

void count_verify_time(const DecodeContext& ctx, const std::vector<Sequence*>& seqs, int width, double verify_ms) {
  if (!ctx.costs) return;
  const double modelled = 1000 * ctx.costs->at(width);
  for (Sequence* seq : seqs) {
    seq->stats().verify_ms += verify_ms;
    seq->stats().modelled_ms += modelled;
  }
}

static int prompt_for(const ModelConfig& c, const std::string& kind) {
  if (kind == "text") return c.prompt_text;
  if (kind == "table") return c.prompt_table;
  if (kind == "formula") return c.prompt_formula;
  throw EngineError("unknown region kind '" + kind + "' (text, table or formula)");
}

// The saccade formats' prompt: [BOS, IMG x N], then the kind's prompt token. Image tokens sit on the merged grid
// at (1, 1 + row, 1 + column), or a line model's at the first text position plus their reading index.
static RegionPrompt saccade_prompt(Model& m, const RegionInput& in) {
  const ModelConfig& c = m.cfg;
  RegionPrompt p;
  p.pending = prompt_for(c, in.kind);
  if (in.channels != 1) throw EngineError("region " + in.id + ": this model reads grey pixels (1 channel)");
  PreparedImage im = prepare_image(c, in.pixels.data(), in.width, in.height);
  p.rows = im.rows;
  p.cols = im.cols;
  LineReading reading;
  p.image_embeds = encode_image(m, im, &reading);
  p.ctc = std::move(reading.ctc);
  p.read = m.line != nullptr;
  p.read_tokens = std::move(reading.tokens);
  p.read_prob = std::move(reading.token_prob);
  p.read_column = std::move(reading.token_column);
  p.encoder = std::move(reading.encoder);
  const int n = p.rows * p.cols;
  p.next_pos = 1 + std::max(p.rows, p.cols);
  p.img_begin = 1;
  p.tokens.assign(size_t(1 + n), c.image_token_id);
  p.tokens[0] = c.bos_token_id;
  p.pos.push_back({0, 0, 0});
  for (int i = 0; i < n; ++i) {
    if (!reading.index.empty()) {
      const int at = p.next_pos + reading.index[size_t(i)];
      p.pos.push_back({at, at, at});
    } else {
      p.pos.push_back({1, 1 + i / p.cols, 1 + i % p.cols});
    }
  }
  return p;
}

Sequence::Sequence(Model& m, Decoder& dec, const RegionInput& in, const DecodeOptions& o, int lookahead,
                   const std::vector<double>* image_share)
    : m_(m), dec_(dec), id_(in.id), kind_(in.kind) {
  const ModelConfig& c = m.cfg;
  if (in.width <= 0 || in.height <= 0 || in.channels <= 0 ||
      in.pixels.size() != size_t(in.width) * size_t(in.height) * size_t(in.channels))
    throw EngineError("region " + in.id + ": pixels must hold width * height * channels bytes");

  double t0 = now_ms();
  RegionPrompt p = m.glm ? glm_ocr::region_prompt(m, in.kind, in.pixels.data(), in.width, in.height, in.channels)
                         : saccade_prompt(m, in);
  rows_ = p.rows;
  cols_ = p.cols;
  n_img_ = rows_ * cols_;
  img_begin_ = p.img_begin;
  image_embeds_ = std::move(p.image_embeds);
  prefill_tokens_ = std::move(p.tokens);
  prefill_pos_ = std::move(p.pos);
  pending_ = p.pending;
  stats_.encode_ms = now_ms() - t0;
  if (kind_ == "text" && !p.encoder.text.empty()) {
    encoder_ = std::move(p.encoder);  // written from the encoder's reading: no prefill, no decoding
    done_ = true;
    return;
  }

  text_slot_ = int(prefill_tokens_.size());
  text_pos_ = p.next_pos;
  // Positions run out at max_position_embeddings; the output is capped there.
  max_text_slots_ = std::max(0, c.text.max_position_embeddings - text_pos_);
  max_new_ = std::min(o.max_new_tokens, std::max(0, max_text_slots_ - lookahead - 2));
  cache_ = make_kv_cache(m, text_slot_ + max_new_ + lookahead + 2);
  if (o.repeat_guard) guard_ = std::make_unique<RepeatGuard>(m.tokenizer);
  if (p.read && !p.ctc.empty()) {
    const std::shared_ptr<const CtcColumns> columns = CtcColumns::for_line(m, p.ctc, cols_);
    if (o.reading_prior && o.temperature <= 0 && o.mode != DecodeMode::Diffusion && c.reading_prior_weight > 0)
      prior_ = std::make_unique<ReadingPrior>(columns, c.text.vocab_size, c.eos_token_id, c.reading_prior_weight);
    reading_ = std::make_unique<ReadingDraft>(std::move(p.read_tokens), std::move(p.read_prob),
                                              std::move(p.read_column), columns, c.eos_token_id, m.line->space);
  }
  if (o.fixation.enabled)
    fix_ = std::make_unique<FixationController>(o.fixation, c.text.num_layers, img_begin_, img_begin_ + n_img_,
                                                image_share, o.mode != DecodeMode::Diffusion);

  t0 = now_ms();
  std::vector<Segment> segs(1);
  Segment& s = segs[0];
  s.cache = &cache_;
  s.first_slot = 0;
  s.tokens = prefill_tokens_;
  s.pos = prefill_pos_;
  for (int i = 0; i < text_slot_; ++i) s.key_limit.push_back(i + 1);
  s.image_embeds = image_embeds_.data();
  s.last_row_logits_only = true;
  if (o.mode == DecodeMode::Mtp) s.hidden_out = &prefill_hidden_;
  if (fix_ && fix_->begin_prefill(text_slot_)) s.hook = fix_.get();
  dec_.forward(segs);
  if (fix_) fix_->end_prefill();
  cache_.len = text_slot_;
  stats_.prefill_ms = now_ms() - t0;
}

std::string Sequence::text() const {
  if (!read_by_encoder()) return m_.tokenizer.decode(output_);
  std::string text;
  for (const std::string& ch : encoder_.text) text += ch;
  return text;
}

void Sequence::commit_encoder_reading(EventSink& sink) {
  for (size_t i = 0; i < encoder_.text.size(); ++i) {
    Event e{};
    e.type = Event::Type::Token;
    e.region_id = id_;
    e.index = int(i);
    e.id = -1;
    e.text = encoder_.text[i];
    e.source = TokenSource::Encoder;
    e.token_draft_conf = -1;
    e.ar_prob = encoder_.prob[i];
    // The column the character was read in is where the model looked (a line's grid is one row).
    e.has_fixation = true;
    e.fixation.indices = {encoder_.column[i]};
    e.fixation.weights = {1.0f};
    sink.emit(std::move(e));
  }
  stats_.tokens = int(encoder_.text.size());  // none committed by the decoder
}

int Sequence::budget() const { return done_ ? 0 : max_new_ - int(output_.size()); }

int Sequence::likely_tokens_left() const {
  if (!reading_) return -1;
  const int read = reading_->characters();
  const int left = read + 2 + read / 8 - int(output_.size());
  return left > 0 ? left : -1;
}

Pos3 Sequence::pos_of(int slot) const {
  if (slot < text_slot_) return prefill_pos_[size_t(slot)];
  const int p = text_pos_ + (slot - text_slot_);
  return {p, p, p};
}

Segment Sequence::segment(const std::vector<Row>& rows) {
  Segment s;
  s.cache = &cache_;
  s.first_slot = rows.front().slot;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].slot != s.first_slot + int(i)) throw EngineError("forward rows must occupy consecutive slots");
    s.tokens.push_back(rows[i].token);
    s.pos.push_back(pos_of(rows[i].slot));
    s.key_limit.push_back(rows[i].key_limit);
  }
  s.img_begin = img_begin_;
  s.img_end = img_begin_ + n_img_;
  if (fix_) {
    fix_->begin_forward(int(rows.size()));
    s.hook = fix_.get();
  }
  s.attention_ms = &stats_.attention_ms;
  ++stats_.forwards;
  return s;
}

std::vector<float> Sequence::forward(const std::vector<Row>& rows) {
  std::vector<Segment> segs{segment(rows)};
  return dec_.forward(segs);
}

std::vector<std::vector<float>> forward_batch(Decoder& dec, const std::vector<Sequence*>& seqs,
                                              const std::vector<std::vector<Row>>& rows,
                                              std::vector<std::vector<float>>* hidden) {
  std::vector<Segment> segs;
  if (hidden) hidden->assign(seqs.size(), {});
  for (size_t i = 0; i < seqs.size(); ++i) {
    segs.push_back(seqs[i]->segment(rows[i]));
    if (hidden) segs.back().hidden_out = &(*hidden)[i];
  }
  const std::vector<float> all = dec.forward(segs);
  size_t total = 0;
  for (const auto& r : rows) total += r.size();
  const size_t V = all.size() / total;
  std::vector<std::vector<float>> out;
  size_t at = 0;
  for (const auto& r : rows) {
    out.emplace_back(all.begin() + long(at), all.begin() + long(at + r.size() * V));
    at += r.size() * V;
  }
  return out;
}

void Sequence::end_step(int carry_row) {
  if (fix_) fix_->end_forward(carry_row);
}

int Sequence::commit(const std::vector<Commit>& toks, int round, EventSink& sink) {
  int n = 0;
  for (const Commit& t : toks) {
    if (budget() <= 0) break;
    Event e{};
    e.type = Event::Type::Token;
    e.region_id = id_;
    e.index = int(output_.size());
    e.id = t.id;
    // A byte-level BPE token can end inside a character: its bytes wait for the tokens that complete it.
    held_text_ += m_.tokenizer.piece(t.id);
    held_text_.erase(0, append_lossy_utf8(held_text_, true, e.text));
    e.round = round;
    e.source = t.source;
    e.token_draft_conf = t.draft_conf;
    e.ar_prob = t.ar_prob;
    if (prior_) {
      e.read_prob = prior_->read_prob(e.index);
      e.decoder_prob = prior_->decoder_prob(e.index);
    }
    if (fix_ && t.row >= 0) e.has_fixation = fix_->row_fixation(t.row, &e.fixation);
    output_.push_back(t.id);
    if (reading_) reading_->extend(t.id);
    pending_ = t.id;
    ++n;
    ++stats_.committed;
    sink.emit(std::move(e));
    const std::vector<int>& eos = m_.cfg.eos_token_ids;
    if (std::find(eos.begin(), eos.end(), t.id) != eos.end()) {
      done_ = true;
    } else if (const int loop = guard_ ? guard_->observe(output_) : 0; loop > 0) {
      output_.resize(output_.size() - size_t(loop));
      held_text_.clear();
      stats_.retracted_tokens += loop;
      done_ = true;
      Event r{};
      r.type = Event::Type::Retract;
      r.region_id = id_;
      r.index = int(output_.size());
      sink.emit(std::move(r));
    }
  }
  if (budget() <= 0) done_ = true;
  stats_.tokens = int(output_.size());
  return n;
}

}  // namespace saccade
