#include "tiny_checkpoint.h"

#include <sys/stat.h>

#include <fstream>
#include <random>
#include <sstream>

#include "util/half.h"

namespace sctest {

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string safetensors_bytes(const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>& t) {
  std::string header = "{", data;
  bool first = true;
  for (const auto& kv : t) {
    const size_t begin = data.size();
    for (float v : kv.second.second) {
      uint16_t h = saccade::f32_to_f16(v);
      data += char(h & 0xFF);
      data += char(h >> 8);
    }
    header += (first ? "\"" : ",\"") + kv.first + "\":{\"dtype\":\"F16\",\"shape\":[";
    for (size_t i = 0; i < kv.second.first.size(); ++i) header += (i ? "," : "") + std::to_string(kv.second.first[i]);
    header += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
    first = false;
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string write_tiny_checkpoint(const TinySpec& s, const std::string& name) {
  const std::string dir = "/tmp/saccade-test-" + name;
  ::mkdir(dir.c_str(), 0755);
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> t;
  auto rand = [&](const std::string& n, std::vector<int64_t> shape, float scale) {
    int64_t numel = 1;
    for (auto d : shape) numel *= d;
    std::vector<float> v(static_cast<size_t>(numel));
    for (float& x : v) x = nd(rng) * scale;
    t[n] = {shape, v};
  };
  auto norm = [&](const std::string& n, int64_t dim) {
    std::vector<float> v(static_cast<size_t>(dim));
    for (float& x : v) x = 1.0f + 0.1f * nd(rng);
    t[n] = {{dim}, v};
  };
  const int P = 8, m = 2, Dv = s.vision_hidden, hv = Dv / s.vision_heads, D = s.hidden;
  const float w = s.weight_scale;
  int stem_in = 1;
  for (size_t i = 0; i < s.stem_channels.size(); ++i) {
    const std::string p = "vision.stem.convs." + std::to_string(i) + ".";
    rand(p + "weight", {s.stem_channels[i], stem_in, 3, 3}, w);
    rand(p + "bias", {s.stem_channels[i]}, w);
    stem_in = s.stem_channels[i];
  }
  rand("vision.patch_embed.weight", {Dv, s.stem_channels.empty() ? P * P : stem_in}, w);
  rand("vision.patch_embed.bias", {Dv}, w);
  for (int i = 0; i < s.vision_layers; ++i) {
    const std::string p = "vision.layers." + std::to_string(i) + ".";
    norm(p + "norm1.weight", Dv);
    rand(p + "attn.qkv.weight", {3 * Dv, Dv}, w);
    rand(p + "attn.qkv.bias", {3 * Dv}, w);
    norm(p + "attn.q_norm.weight", hv);
    norm(p + "attn.k_norm.weight", hv);
    rand(p + "attn.proj.weight", {Dv, Dv}, w);
    rand(p + "attn.proj.bias", {Dv}, w);
    norm(p + "norm2.weight", Dv);
    rand(p + "mlp.gate_proj.weight", {s.vision_inter, Dv}, w);
    rand(p + "mlp.up_proj.weight", {s.vision_inter, Dv}, w);
    rand(p + "mlp.down_proj.weight", {Dv, s.vision_inter}, w);
  }
  norm("vision.post_norm.weight", Dv);
  rand("merger.fc1.weight", {D, m * m * Dv}, w);
  rand("merger.fc1.bias", {D}, w);
  rand("merger.fc2.weight", {D, D}, w);
  rand("merger.fc2.bias", {D}, w);
  norm("merger.norm.weight", D);
  rand("model.embed_tokens.weight", {s.vocab, D}, 1.0f);
  if (s.favor_strength > 0) {
    auto& e = t["model.embed_tokens.weight"].second;
    for (float& x : e) x += 0.5f;
    // Token 50 itself points the same way, so once written it tends to be written again.
    for (int i = 0; i < D; ++i) e[size_t(50 * D + i)] += s.favor_strength;
  }
  const int qd = s.heads * s.head_dim, kvd = s.kv_heads * s.head_dim;
  auto decoder_layer = [&](const std::string& p) {
    norm(p + "input_layernorm.weight", D);
    rand(p + "self_attn.q_proj.weight", {qd, D}, w * 2);
    rand(p + "self_attn.k_proj.weight", {kvd, D}, w * 2);
    rand(p + "self_attn.v_proj.weight", {kvd, D}, w);
    rand(p + "self_attn.o_proj.weight", {D, qd}, w);
    norm(p + "post_attention_layernorm.weight", D);
    rand(p + "mlp.gate_proj.weight", {s.inter, D}, w);
    rand(p + "mlp.up_proj.weight", {s.inter, D}, w);
    rand(p + "mlp.down_proj.weight", {D, s.inter}, w);
  };
  for (int i = 0; i < s.layers; ++i) decoder_layer("model.layers." + std::to_string(i) + ".");
  norm("model.norm.weight", D);
  if (s.mtp) {
    norm("mtp.hnorm.weight", D);
    norm("mtp.enorm.weight", D);
    rand("mtp.eh_proj.weight", {D, 2 * D}, w);
    // A favoured checkpoint's head passes the next token's embedding on, so after token 50 it drafts 50.
    if (s.favor_strength > 0)
      for (int i = 0; i < D; ++i) t["mtp.eh_proj.weight"].second[size_t(i * 2 * D + D + i)] += 1.0f;
    decoder_layer("mtp.layer.");
    norm("mtp.norm.weight", D);
  }
  rand("lm_head.weight", {s.vocab, D}, 0.5f);
  if (s.favor_strength > 0)
    for (int i = 0; i < D; ++i) t["lm_head.weight"].second[size_t(50 * D + i)] += s.favor_strength;
  write_file(dir + "/model.safetensors", safetensors_bytes(t));

  const int half = s.head_dim / 2, st = half / 4, sh = (half - st) / 2, sw = half - st - sh;
  std::ostringstream c;
  std::string stem;
  for (int ch : s.stem_channels) stem += (stem.empty() ? "" : ",") + std::to_string(ch);
  c << "{\"model_type\":\"saccade_ocr\",\"format_version\":" << (stem.empty() ? 2 : 3)
    << ",\"torch_dtype\":\"float16\","
    << "\"vision_config\":{" << (stem.empty() ? "" : "\"stem_channels\":[" + stem + "],") << "\"patch_size\":8,\"in_channels\":1,\"hidden_size\":" << Dv << ",\"num_layers\":"
    << s.vision_layers << ",\"num_heads\":" << s.vision_heads << ",\"intermediate_size\":" << s.vision_inter
    << ",\"merge_size\":2,\"rms_norm_eps\":1e-6,\"rope_theta\":10000.0},"
    << "\"text_config\":{\"hidden_size\":" << D << ",\"num_layers\":" << s.layers << ",\"num_attention_heads\":"
    << s.heads << ",\"num_key_value_heads\":" << s.kv_heads << ",\"head_dim\":" << s.head_dim
    << ",\"intermediate_size\":" << s.inter << ",\"vocab_size\":" << s.vocab
    << ",\"rms_norm_eps\":1e-6,\"rope_theta\":10000.0,\"mrope_section\":[" << st << "," << sh << "," << sw
    << "],\"max_position_embeddings\":4096" << (s.mtp ? ",\"num_mtp_layers\":1" : "") << "},"
    << "\"image\":{\"max_image_tokens\":" << s.max_image_tokens << ",\"min_height\":32,\"unit\":16,\"mean\":0.5,\"std\":0.5},"
    << "\"bos_token_id\":1,\"eos_token_id\":2,\"pad_token_id\":0,\"mask_token_id\":3,\"image_token_id\":4,"
    << "\"prompt_token_ids\":{\"text\":5,\"table\":6,\"formula\":7},\"diffusion_block_size\":8,"
    << "\"some_future_key\":[1,2,3]}";
  write_file(dir + "/config.json", c.str());

  std::ostringstream tk;
  const char* specials[] = {"<pad>", "<bos>", "<eos>", "<mask>", "<image>", "<text>", "<table>", "<formula>"};
  tk << "{\"version\":\"1.0\",\"model\":{\"type\":\"SaccadeGreedy\",\"vocab\":{";
  for (int i = 0; i < s.vocab; ++i) {
    std::string piece = i < 8 ? specials[i] : std::string(1, char(' ' + (i - 8) % 95));
    if (i >= 8 + 95) piece = "<t" + std::to_string(i) + ">";
    std::string esc;
    for (char ch : piece) {
      if (ch == '"' || ch == '\\') esc += '\\';
      esc += ch;
    }
    tk << (i ? "," : "") << "\"" << esc << "\":" << i;
  }
  tk << "}},\"added_tokens\":[";
  for (int i = 0; i < 8; ++i) tk << (i ? "," : "") << "{\"id\":" << i << ",\"content\":\"" << specials[i] << "\",\"special\":true}";
  tk << "]}";
  write_file(dir + "/tokenizer.json", tk.str());
  return dir;
}

}  // namespace sctest
