#include "model/line_encoder.h"

#include <algorithm>
#include <cmath>

#include "model/image_preprocess.h"
#include "model/model.h"
#include "util/error.h"
#include "util/utf8.h"

namespace saccade {

namespace {

// conv (already applied) -> affines around hardswish.
void activate(Backend& be, const LineRepConv& c, float* x, size_t n) {
  be.affine_hardswish(x, n, c.scale1, c.bias1, c.scale2, c.bias2);
}

// A 1 x k convolution along the line: [T, C_in] -> [T, w.rows].
Buffer conv_along_line(Backend& be, const float* x, int T, int C, const Weight& w, const float* bias) {
  const int k = w.cols / C;
  Buffer windows(&be, size_t(T) * k * C), y(&be, size_t(T) * w.rows);
  be.line_windows(x, T, C, k, windows.data());
  be.linear(windows.data(), T, w, bias, y.data());
  return y;
}

}  // namespace

void line_mixer_layer(Backend& be, const LineMixerLayer& L, const LineEncoderConfig& e, float* h, int T) {
  const int C = e.neck_dim, H = e.neck_heads, I = C * e.neck_mlp_ratio;
  Buffer n(&be, size_t(T) * C), q(&be, size_t(T) * C), k(&be, size_t(T) * C), v(&be, size_t(T) * C),
      att(&be, size_t(T) * C), mlp(&be, size_t(T) * I);
  be.layer_norm(h, T, C, L.norm1_w.data(), L.norm1_b.data(), 1e-5f, n.data());
  be.linear(n.data(), T, L.q, L.q_b.data(), q.data());
  be.linear(n.data(), T, L.k, L.k_b.data(), k.data());
  be.linear(n.data(), T, L.v, L.v_b.data(), v.data());
  std::vector<int> limit(size_t(T), T);  // every column sees the whole line
  be.attention(attention_args(q.data(), k.data(), v.data(), T, H, H, C / H, limit.data(), att.data()));
  be.linear(att.data(), T, L.proj, L.proj_b.data(), n.data());
  be.add(h, n.data(), size_t(T) * C);
  be.layer_norm(h, T, C, L.norm2_w.data(), L.norm2_b.data(), 1e-5f, n.data());
  be.linear(n.data(), T, L.fc1, L.fc1_b.data(), mlp.data());
  be.silu(mlp.data(), mlp.size());
  be.linear(mlp.data(), T, L.fc2, L.fc2_b.data(), n.data());
  be.add(h, n.data(), size_t(T) * C);
}

LineFeatures line_encoder(Model& m, const PreparedImage& im) {
  if (m.cfg.vision.encoder.kind == LineEncoderKind::PPOCRv6) return line_encoder_v6(m, im);
  Backend& be = *m.backend;
  const LineVision& lv = *m.line;
  const LineEncoderConfig& e = m.cfg.vision.encoder;
  int H = im.height, W = im.width, C = e.stem_channels;

  Buffer x(&be, im.pixels.size(), Contents::Undefined);
  be.upload(x.data(), im.pixels.data(), im.pixels.size());
  {  // stem: 3x3, stride 2, on the grey line
    Buffer y(&be, size_t((H + 1) / 2) * ((W + 1) / 2) * C, Contents::Undefined);
    be.conv(x.data(), H, W, 1, 3, 3, 2, 2, lv.stem, lv.stem_b.data(), false, y.data());
    H = (H + 1) / 2;
    W = (W + 1) / 2;
    x = std::move(y);
  }
  for (size_t i = 0; i < lv.blocks.size(); ++i) {
    const LineBlock& b = lv.blocks[i];
    const LineBlockConfig& bc = e.blocks[i];
    const int Ho = (H + bc.stride_h - 1) / bc.stride_h, Wo = (W + bc.stride_w - 1) / bc.stride_w;
    Buffer y(&be, size_t(Ho) * Wo * C, Contents::Undefined);
    be.depthwise_conv(x.data(), H, W, C, bc.kernel, bc.stride_h, bc.stride_w, b.dw.depthwise.data(), b.dw.bias.data(),
                      y.data());
    activate(be, b.dw, y.data(), y.size());
    H = Ho;
    W = Wo;
    if (b.se) {
      Buffer mean(&be, size_t(C)), mid(&be, size_t(b.se_reduce.rows)), gate(&be, size_t(C));
      be.column_mean(y.data(), H * W, C, mean.data());
      be.linear(mean.data(), 1, b.se_reduce, b.se_reduce_b.data(), mid.data());
      be.relu(mid.data(), mid.size());
      be.linear(mid.data(), 1, b.se_expand, b.se_expand_b.data(), gate.data());
      be.hard_sigmoid(gate.data(), gate.size(), 1.0f / 6, 0.5f);
      be.scale_columns(y.data(), H * W, C, gate.data(), 0.0f);
    }
    x = Buffer(&be, size_t(H) * W * bc.out, Contents::Undefined);
    be.linear(y.data(), H * W, b.pw.pointwise, b.pw.bias.data(), x.data());
    C = bc.out;
    activate(be, b.pw, x.data(), x.size());
  }

  LineFeatures f;
  f.T = W / e.pool_w;
  const int T = f.T;
  f.backbone = Buffer(&be, size_t(T) * C);
  be.avg_pool(x.data(), H, W, C, e.pool_h, e.pool_w, f.backbone.data());

  Buffer r = conv_along_line(be, f.backbone.data(), T, C, lv.neck_in, lv.neck_in_b.data());
  be.silu(r.data(), r.size());
  Buffer h(&be, size_t(T) * e.neck_dim);
  be.linear(r.data(), T, lv.neck_up, lv.neck_up_b.data(), h.data());
  be.silu(h.data(), h.size());
  for (const LineMixerLayer& L : lv.mixer) line_mixer_layer(be, L, e, h.data(), T);
  be.layer_norm(h.data(), T, e.neck_dim, lv.neck_norm_w.data(), lv.neck_norm_b.data(), 1e-6f, h.data());
  Buffer back(&be, size_t(T) * C);
  be.linear(h.data(), T, lv.neck_back, lv.neck_back_b.data(), back.data());
  be.silu(back.data(), back.size());
  // neck_fuse over [backbone; back], as its two column halves.
  Buffer fused = conv_along_line(be, f.backbone.data(), T, C, lv.neck_fuse_z, lv.neck_fuse_b.data());
  Buffer fused_h = conv_along_line(be, back.data(), T, C, lv.neck_fuse_h, nullptr);
  be.add(fused.data(), fused_h.data(), fused.size());
  be.silu(fused.data(), fused.size());
  f.neck = Buffer(&be, size_t(T) * e.neck_dim);
  be.linear(fused.data(), T, lv.neck_out, lv.neck_out_b.data(), f.neck.data());
  be.silu(f.neck.data(), f.neck.size());

  f.ctc_logits = Buffer(&be, size_t(T) * e.num_classes, Contents::Undefined);
  be.linear(f.neck.data(), T, lv.ctc, lv.ctc_b.data(), f.ctc_logits.data());
  return f;
}

namespace {

bool one_character(const Tokenizer& tok, int id) {
  if (id >= tok.size() || tok.is_special(id)) return false;
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  decode_utf8(tok.piece(id), cps, offsets);
  return cps.size() == 1;
}

// The id of the token that is exactly `text`, or -1.
int single_token(const Tokenizer& tok, const std::string& text) {
  try {
    const std::vector<int> ids = tok.encode(text);
    return ids.size() == 1 ? ids[0] : -1;
  } catch (const EngineError&) {
    return -1;
  }
}

}  // namespace

void index_shown_tokens(Model& m) {
  LineVision& lv = *m.line;
  const int V = m.cfg.text.vocab_size;
  std::vector<char> named(size_t(V), 0);
  for (int c : lv.ctc_map)
    if (c < V) named[size_t(c)] = 1;
  std::vector<int> column(size_t(V), -1);
  for (int c = 0; c < V; ++c)
    if (one_character(m.tokenizer, c)) column[size_t(c)] = named[size_t(c)] ? c : V + 1;
  for (const auto& [from, to] : m.cfg.reading_prior_read_as) {
    const int f = single_token(m.tokenizer, from), t = single_token(m.tokenizer, to);
    if (f >= 0 && t >= 0 && column[size_t(f)] >= 0 && named[size_t(t)]) column[size_t(f)] = t;
  }
  for (int c = 0; c < V; ++c)
    if (column[size_t(c)] >= 0) {
      lv.shown_tokens.push_back(c);
      lv.shown_class.push_back(column[size_t(c)]);
    }
  const int space = single_token(m.tokenizer, " ");
  lv.space = space >= 0 && named[size_t(space)] ? space : -1;
}

void read_greedy(const std::vector<float>& folded, int T, int classes, int space, bool positions,
                 LineReading* reading) {
  const int blank = classes - 2;
  if (positions) reading->index.assign(size_t(T), 0);
  int started = 0, last = -1;
  float gap_space = 0.0f;  // the largest space probability in the blank columns since the last character
  int gap_column = -1;     // where it was
  for (int t = 0; t < T; ++t) {
    const float* row = folded.data() + size_t(t) * classes;
    const int best = int(std::max_element(row, row + classes) - row);  // first maximum, as torch's argmax
    if (best == blank && space >= 0 && row[space] > gap_space) {
      gap_space = row[space];
      gap_column = t;
    }
    if (best != blank && best != last) {
      ++started;
      const int prev = reading->tokens.empty() ? space : reading->tokens.back();
      if (gap_space >= kSpaceRead && best != space && prev != space) {
        reading->tokens.push_back(space);
        reading->token_prob.push_back(gap_space);
        reading->token_column.push_back(gap_column);
      }
      reading->tokens.push_back(best < blank ? best : -1);
      reading->token_prob.push_back(0.0f);
      reading->token_column.push_back(t);
    }
    if (best != blank) {
      reading->token_prob.back() = std::max(reading->token_prob.back(), row[best]);
      gap_space = 0.0f;
    }
    if (positions) reading->index[size_t(t)] = started - (best != blank ? 1 : 0);
    last = best;
  }
}

EncoderChars read_encoder_chars(const std::vector<float>& p, int T, int K, const std::vector<std::string>& class_text) {
  EncoderChars read;
  int last = 0;
  for (int t = 0; t < T; ++t) {
    const float* row = p.data() + size_t(t) * K;
    const int best = int(std::max_element(row, row + K) - row);
    if (best != 0 && best != last) {
      read.text.push_back(class_text[size_t(best)]);
      read.prob.push_back(0.0f);
      read.column.push_back(t);
    }
    if (best != 0) read.prob.back() = std::max(read.prob.back(), row[best]);
    last = best;
  }
  return read;
}

Buffer line_image_tokens(Model& m, const PreparedImage& im, LineReading* reading) {
  Backend& be = *m.backend;
  const LineVision& lv = *m.line;
  const LineEncoderConfig& e = m.cfg.vision.encoder;
  const int D = m.cfg.text.hidden_size, classes = lv.ctc_table.cols, K = e.num_classes;
  LineFeatures f = line_encoder(m, im);
  const int T = f.T;

  Buffer hid(&be, size_t(T) * D), part(&be, size_t(T) * D), out(&be, size_t(T) * D);
  for (size_t i = 0; i < e.features.size(); ++i) {
    const Buffer& feat = e.features[i] == "neck" ? f.neck : f.backbone;
    be.linear(feat.data(), T, lv.proj_fc1[i], i == 0 ? lv.proj_fc1_b.data() : nullptr, i == 0 ? hid.data() : part.data());
    if (i > 0) be.add(hid.data(), part.data(), hid.size());
  }
  be.gelu(hid.data(), hid.size());
  be.linear(hid.data(), T, lv.proj_fc2, lv.proj_fc2_b.data(), out.data());

  // The encoder's CTC distribution per column, folded onto our classes, read through the token embeddings.
  be.softmax_rows(f.ctc_logits.data(), T, K);
  std::vector<float> p(size_t(T) * K), folded(size_t(T) * classes, 0.0f);
  be.download(p.data(), f.ctc_logits.data(), p.size());
  for (int t = 0; t < T; ++t) {
    const float* pt = p.data() + size_t(t) * K;
    float* row = folded.data() + size_t(t) * classes;
    // Each class's share summed in ascending CTC class order, as a scatter in that order would.
    for (int c = 0; c < classes; ++c) {
      float acc = 0.0f;
      for (int i = lv.ctc_class_start[size_t(c)]; i < lv.ctc_class_start[size_t(c) + 1]; ++i)
        acc += pt[lv.ctc_by_class[size_t(i)]];
      row[c] = acc;
    }
  }
  if (reading) {
    read_greedy(folded, T, classes, lv.space, e.reading_positions, reading);
    const bool lacks = std::find(reading->tokens.begin(), reading->tokens.end(), -1) != reading->tokens.end();
    if (lacks && !lv.class_text.empty()) reading->encoder = read_encoder_chars(p, T, K, lv.class_text);
  }
  Buffer ctc(&be, folded.size());
  be.upload(ctc.data(), folded.data(), folded.size());
  be.linear(ctc.data(), T, lv.ctc_table, nullptr, part.data());
  be.add(out.data(), part.data(), out.size());
  be.rms_norm(out.data(), T, D, lv.proj_norm.data(), m.cfg.text.rms_norm_eps, out.data());
  if (reading) reading->ctc = std::move(folded);
  return out;
}

}  // namespace saccade
