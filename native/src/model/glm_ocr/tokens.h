#pragma once
// The tokenizer side of a GLM-OCR folder: tokenizer.json (byte-level BPE, model/bpe_tokenizer.h) and the chat
// template. The prompts are the template's fixed renderings (docs/glm-ocr.md 5.1), tokenised here once.
#include <string>

#include "model/glm_ocr/glm_ocr.h"
#include "model/tokenizer.h"

namespace saccade::glm_ocr {

struct TokenizerParts {
  Tokenizer text;    // id -> the bytes it decodes to, special tokens to nothing: what the engine emits
  PromptIds prompt;
};

// The prompt for a region kind, one <|image|> standing for the image's run: the chat template rendered for a
// user message with an image, then the task text, and the generation prompt.
std::string render_prompt(const std::string& kind);

// Reads dir/tokenizer.json and checks that the folder's chat template (chat_template.jinja, or
// tokenizer_config.json's chat_template) is the one render_prompt renders. Throws EngineError naming the file.
TokenizerParts load_tokenizer(const std::string& dir, int image_token_id, int vocab_size);

}  // namespace saccade::glm_ocr
