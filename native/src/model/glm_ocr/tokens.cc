#include "model/glm_ocr/tokens.h"

#include "model/bpe_tokenizer.h"
#include "util/error.h"
#include "util/json.h"
#include "util/mapped_file.h"

namespace saccade::glm_ocr {

namespace {

const char* const kKinds[][2] = {
    {"text", "Text Recognition:"}, {"table", "Table Recognition:"}, {"formula", "Formula Recognition:"}};

// The literal pieces of the template that the rendering above comes from; a template without them would
// prompt the model differently from what render_prompt writes.
const char* const kTemplatePieces[] = {"<|user|>\n", "<|begin_of_image|><|image|><|end_of_image|>", "<|assistant|>\n"};

std::string chat_template(const std::string& dir) {
  // transformers prefers chat_template.jinja over tokenizer_config.json's copy.
  if (path_exists(dir + "/chat_template.jinja")) return read_text_file(dir + "/chat_template.jinja", kMaxConfigBytes);
  std::string config;
  try {
    config = read_text_file(dir + "/tokenizer_config.json", kMaxTokenizerBytes);
  } catch (const EngineError&) {
    throw EngineError("the folder has no chat template (chat_template.jinja or tokenizer_config.json)");
  }
  Json root;
  try {
    root = Json::parse(config);
  } catch (const EngineError& e) {
    throw EngineError(std::string("tokenizer_config.json: ") + e.what());
  }
  const Json* t = root.is_object() ? root.find("chat_template") : nullptr;
  if (!t || !t->is_string()) throw EngineError("tokenizer_config.json: no chat_template, and no chat_template.jinja");
  return t->str("chat_template");
}

void check_template(const std::string& t) {
  bool ok = t.rfind("[gMASK]<sop>", 0) == 0;
  for (const char* piece : kTemplatePieces) ok = ok && t.find(piece) != std::string::npos;
  if (!ok)
    throw EngineError("chat template: not GLM-OCR's ([gMASK]<sop><|user|> ... <|assistant|>), the prompt this "
                      "engine renders");
}

}  // namespace

std::string render_prompt(const std::string& kind) {
  for (const auto& k : kKinds)
    if (kind == k[0])
      return std::string("[gMASK]<sop><|user|>\n<|begin_of_image|><|image|><|end_of_image|>") + k[1] +
             "<|assistant|>\n";
  throw EngineError("unknown region kind '" + kind + "' (text, table or formula)");
}

TokenizerParts load_tokenizer(const std::string& dir, int image_token_id, int vocab_size) {
  check_template(chat_template(dir));
  const BpeTokenizer bpe = BpeTokenizer::load(dir + "/tokenizer.json");
  if (bpe.vocab_size() > vocab_size)
    throw EngineError("tokenizer.json: ids up to " + std::to_string(bpe.vocab_size() - 1) +
                      " exceed the model's vocab_size " + std::to_string(vocab_size));
  if (bpe.token_to_id("<|image|>") != image_token_id)
    throw EngineError("tokenizer.json: <|image|> is not config.json's image_token_id " + std::to_string(image_token_id));

  TokenizerParts out;
  for (const auto& k : kKinds) {
    const std::vector<int> ids = bpe.encode(render_prompt(k[0]));
    size_t at = 0;
    while (at < ids.size() && ids[at] != image_token_id) ++at;
    const std::vector<int> before(ids.begin(), ids.begin() + long(at));
    if (at == 0 || at + 1 >= ids.size() || (!out.prompt.before_image.empty() && before != out.prompt.before_image))
      throw EngineError("tokenizer.json: the prompt does not tokenise around one <|image|>");
    out.prompt.before_image = before;
    out.prompt.after_image[k[0]].assign(ids.begin() + long(at) + 1, ids.end());
  }

  std::vector<std::string> pieces(static_cast<size_t>(vocab_size));
  std::vector<char> special(size_t(vocab_size), 0);
  for (int id = 0; id < bpe.vocab_size(); ++id) {
    if (bpe.id_to_token(id).empty()) continue;  // a gap in the ids
    pieces[size_t(id)] = bpe.token_bytes(id);
    special[size_t(id)] = bpe.is_special(id);
  }
  out.text = Tokenizer::from_pieces(std::move(pieces), std::move(special));
  return out;
}

}  // namespace saccade::glm_ocr
