#pragma once
// Format 4's vision path (docs/model-format.md "Format 4"): the pretrained line encoder (PP-OCRv4's recogniser,
// re-parameterised: every backbone layer one convolution with its batch norm folded in; or PP-OCRv6 small's,
// line_encoder_v6.cc) and the projector that turns each column of 8 pixels into one image token from the
// encoder's features and its CTC distribution.
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"

namespace saccade {

struct Model;
struct PreparedImage;

// conv -> scale1 * x + bias1 -> hardswish -> scale2 * x + bias2 (PaddleOCR's learnable affine blocks).
struct LineRepConv {
  Buffer depthwise;  // [C, k, k] for a depthwise layer (then `pointwise` is empty)
  Weight pointwise;  // [out, in] for a 1x1 layer
  Buffer bias;
  float scale1 = 1, bias1 = 0, scale2 = 1, bias2 = 0;
};

struct LineBlock {
  LineRepConv dw, pw;
  bool se = false;
  Weight se_reduce, se_expand;
  Buffer se_reduce_b, se_expand_b;
};

struct LineMixerLayer {
  Buffer norm1_w, norm1_b, norm2_w, norm2_b, q_b, k_b, v_b, proj_b, fc1_b, fc2_b;
  Weight q, k, v, proj, fc1, fc2;
};

// PP-OCRv6's stem: conv1 (3x3/2) -> [conv2a -> conv2b (2x2 each)] beside a 2x2 max pool, concatenated ->
// conv3 (3x3/2) -> conv4 (1x1), relu after each convolution. A 2x2 convolution is kept as a 3x3 one whose top
// row and left column are zero: ONNX's SAME_UPPER padding of a 2x2 window, which pads at the bottom and right.
struct LineStemV6 {
  Weight conv1, conv2a, conv2b, conv3, conv4;
  Buffer conv1_b, conv2a_b, conv2b_b, conv3_b, conv4_b;
};

// A PP-OCRv6 block: depthwise token mixer, optional squeeze-excite, channel MLP (fc1, GELU, fc2).
struct LineBlockV6 {
  Buffer dw, dw_b;  // [C, k, k], [C]
  Weight se_reduce, se_expand, fc1, fc2;
  Buffer se_reduce_b, se_expand_b, fc1_b, fc2_b;
};

struct LineVision {
  Weight stem;  // [stem, 9]: the 3-channel stem's weights summed over channels, since lines are grey
  Buffer stem_b;
  std::vector<LineBlock> blocks;
  // PP-OCRv6 in place of the three above; its neck: neck_in (1x1) -> neck_dw (a 1 x k depthwise convolution
  // kept as k x k with only its middle row, so that Backend::depthwise_conv runs it on a one-row map) added to
  // its input, the mixer, neck_norm, then the shortcut (1x1 from the pooled backbone) added.
  LineStemV6 v6_stem;
  std::vector<LineBlockV6> v6_blocks;
  Weight neck_shortcut;
  Buffer neck_shortcut_b, neck_dw, neck_dw_b;
  // The neck's convolutions along the line; 1x3 ones in (kx, c) column order. neck_fuse reads the concatenation
  // [pooled backbone; neck_back output], kept as its two column halves.
  Weight neck_in, neck_up, neck_back, neck_fuse_z, neck_fuse_h, neck_out;
  Buffer neck_in_b, neck_up_b, neck_back_b, neck_fuse_b, neck_out_b;
  std::vector<LineMixerLayer> mixer;
  Buffer neck_norm_w, neck_norm_b;
  Weight ctc;
  Buffer ctc_b;
  // Projector: fc1 over the concatenated features, kept as one column block per feature (config order).
  std::vector<Weight> proj_fc1;
  Weight proj_fc2, ctc_table;  // ctc_table [D, V + 2]: the token embeddings and the two extra rows, transposed
  Buffer proj_fc1_b, proj_fc2_b, proj_norm;
  std::vector<int> ctc_map;  // CTC class -> our class (token id, V = blank, V + 1 = a character we lack)
  // The CTC classes grouped by the class they fold onto, ascending within a group: group c is
  // ctc_by_class[ctc_class_start[c], ctc_class_start[c + 1]). Each folded probability is then summed in a
  // register rather than through memory (most of the 6,623 characters fold onto one class).
  std::vector<int> ctc_by_class, ctc_class_start;
  // What the reading prior (decode/reading_prior.h) scores: the tokens a reading can show (single characters,
  // ascending) and the folded class whose column each reads: its config reading_prior.read_as stand-in's
  // when it has one, else its own when some CTC class folds onto it, else "a character we lack" (V + 1).
  std::vector<int> shown_tokens, shown_class;
  // Each CTC class's own text (UTF-8; the blank's empty), from the model's encoder_charset; empty for a model
  // without one. A line whose reading holds a character the decoder lacks is written from these
  // (LineReading::encoder).
  std::vector<std::string> class_text;
  // The space token where some CTC class folds onto it (-1: none): the greedy readout adds the spaces it
  // nearly read (LineReading::tokens), and the reading draft reads the output's spaces as optional.
  int space = -1;
};

// The encoder's outputs for one line of T = width / 8 columns.
struct LineFeatures {
  int T = 0;
  Buffer backbone;                // [T, channels]
  Buffer neck;                    // [T, neck_dim]
  Buffer ctc_logits;              // [T, num_classes]
};

LineFeatures line_encoder(Model& m, const PreparedImage& im);
LineFeatures line_encoder_v6(Model& m, const PreparedImage& im);

// One attention block of the encoder's neck, in place on h [T, neck_dim] (PP-OCRv4's and PP-OCRv6's alike).
void line_mixer_layer(Backend& be, const LineMixerLayer& L, const LineEncoderConfig& e, float* h, int T);

// Fills m.line's shown_tokens and shown_class from its ctc_map, the tokenizer and the config, once at load.
void index_shown_tokens(Model& m);

// A line read greedily over the encoder's own classes: one character each, with its largest column
// probability and the column it starts in.
struct EncoderChars {
  std::vector<std::string> text;
  std::vector<float> prob;
  std::vector<int> column;
};

// What the encoder read on a line, besides its image tokens.
struct LineReading {
  // Per token, with vision_config.positions "reading", its reading index (greedy CTC over the folded
  // distribution: a character's columns get its index, a blank column the next one's); else empty.
  std::vector<int> index;
  std::vector<float> ctc;  // host [T, vocab + 2]: the CTC distribution folded onto our classes
  // The greedy CTC readout as tokens (a character the model lacks: -1), with each one's largest column
  // probability and the column it starts in; and a space between two characters where a blank column
  // between them shows one with probability kSpaceRead or more, with that probability and column. CTC heads
  // drop the narrow spaces of tight print ("YOUFORYOUR"), and each one dropped costs the reading draft a
  // round.
  std::vector<int> tokens;
  std::vector<float> token_prob;
  std::vector<int> token_column;
  // Where that readout holds a character the decoder lacks (a -1 in tokens) and the model states its encoder's
  // characters: the line as the encoder reads it (Sequence::read_by_encoder). Empty otherwise.
  EncoderChars encoder;
};

// On 60 generated lines (scripts/make_bench_regions.py --per-type 60) it added 73 spaces, 69 of them where
// the model's output has one; over those and 120 real lines, missing spaces fell from 108 of the reading's
// 249 mismatches with the output to 12.
constexpr float kSpaceRead = 0.05f;

// The greedy readout of a folded CTC distribution [T, classes] (blank: classes - 2; space: its class, -1 for
// none) into reading's tokens and token_prob, and its index where `positions`.
void read_greedy(const std::vector<float>& folded, int T, int classes, int space, bool positions,
                 LineReading* reading);

// The greedy readout of the encoder's own CTC distribution p [T, K] (blank: class 0), by class_text.
EncoderChars read_encoder_chars(const std::vector<float>& p, int T, int K, const std::vector<std::string>& class_text);

// Image tokens [T, text hidden] of one line; what the encoder read goes to `reading` when it is given.
Buffer line_image_tokens(Model& m, const PreparedImage& im, LineReading* reading);

}  // namespace saccade
