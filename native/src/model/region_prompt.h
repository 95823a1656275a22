#pragma once
// What decoding a region starts from: the image's tokens and the prompt rows before the first step, as the
// model's family lays them out (decode/sequence.cc for the saccade formats, glm_ocr/prompt.cc for GLM-OCR).
#include <vector>

#include "backend/backend.h"
#include "model/line_encoder.h"
#include "model/rope.h"

namespace saccade {

struct RegionPrompt {
  int rows = 0, cols = 0;   // merged image grid
  Buffer image_embeds;      // [rows * cols, hidden]: the rows that replace the prompt's image tokens, in order
  std::vector<int> tokens;  // the prefill, slots 0 .. n - 1
  std::vector<Pos3> pos;    // their positions
  int img_begin = 0;        // the image's first slot; it fills rows * cols slots
  int pending = 0;          // the prompt's last token: the first step feeds it at slot n
  int next_pos = 0;         // the position of slot n; every later slot one more, on all three axes
  std::vector<float> ctc;   // a line model's folded CTC distribution [cols, vocab + 2], for the reading prior
  std::vector<int> read_tokens;    // a line model's greedy CTC readout (a character the model lacks: -1)
  std::vector<float> read_prob;    // each one's largest column probability
  std::vector<int> read_column;    // the column each one starts in
  bool read = false;               // whether there is a reading at all
  EncoderChars encoder;            // a line the decoder cannot write, as the encoder reads it (else empty)
};

}  // namespace saccade
