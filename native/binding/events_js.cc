#include "events_js.h"

#include <climits>
#include <cmath>

namespace saccade::js {

namespace {

Napi::Array ints(Napi::Env env, const std::vector<int>& v) {
  Napi::Array a = Napi::Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a.Set(uint32_t(i), Napi::Number::New(env, v[i]));
  return a;
}

Napi::Array floats(Napi::Env env, const std::vector<float>& v) {
  Napi::Array a = Napi::Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a.Set(uint32_t(i), Napi::Number::New(env, double(v[i])));
  return a;
}

[[noreturn]] void type_error(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }

double num(const Napi::Object& o, const char* key, double dflt) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return dflt;
  if (!v.IsNumber()) type_error(o.Env(), std::string("decode option ") + key + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

// A whole number an int holds; the engine checks its range. A plain cast would wrap 2^32 + 4 to 4 and is
// undefined for NaN, infinities and values beyond int.
int whole(const Napi::Object& o, const char* key, int dflt) {
  const double d = num(o, key, dflt);
  if (!(d == std::trunc(d) && d >= INT_MIN && d <= INT_MAX))
    type_error(o.Env(), std::string("decode option ") + key + " must be a whole number within 32 bits");
  return int(d);
}

}  // namespace

int whole_number(const Napi::Value& v, const std::string& name, int lo, int hi) {
  const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(d == std::trunc(d) && d >= lo && d <= hi))
    throw Napi::RangeError::New(v.Env(), name + " must be a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
  return int(d);
}

Napi::Object stats_to_js(Napi::Env env, const RegionStats& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("tokens", s.tokens);
  o.Set("forwards", s.forwards);
  o.Set("rounds", s.rounds);
  o.Set("encodeMs", s.encode_ms);
  o.Set("prefillMs", s.prefill_ms);
  o.Set("decodeMs", s.decode_ms);
  o.Set("decodeShareMs", s.decode_share_ms);
  o.Set("attentionMs", s.attention_ms);
  o.Set("visualTokenFraction", s.visual_token_fraction);
  o.Set("retractedTokens", s.retracted_tokens);
  o.Set("committed", s.committed);
  o.Set("arEstimateMs", s.ar_estimate_ms);
  return o;
}

Napi::Object event_to_js(Napi::Env env, const Event& e) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("regionId", e.region_id);
  switch (e.type) {
    case Event::Type::RegionStart: {
      o.Set("type", "region_start");
      o.Set("kind", e.kind);
      Napi::Object g = Napi::Object::New(env);
      g.Set("rows", e.grid_rows);
      g.Set("cols", e.grid_cols);
      o.Set("grid", g);
      o.Set("imageTokens", e.image_tokens);
      break;
    }
    case Event::Type::Round:
      o.Set("type", "round");
      o.Set("round", e.round);
      o.Set("blockSize", e.block_size);
      o.Set("drafter", e.mtp_drafts ? "mtp" : "diffusion");
      o.Set("draft", ints(env, e.draft));
      o.Set("draftConf", floats(env, e.draft_conf));
      o.Set("verify", ints(env, e.verify));
      o.Set("accepted", e.accepted);
      o.Set("committed", ints(env, e.committed));
      o.Set("forwards", e.forwards);
      o.Set("draftMs", e.draft_ms);
      o.Set("verifyMs", e.verify_ms);
      break;
    case Event::Type::Token: {
      o.Set("type", "token");
      o.Set("index", e.index);
      o.Set("id", e.id);
      o.Set("text", e.text);
      o.Set("round", e.round);
      o.Set("source", token_source_name(e.source));
      o.Set("draftConf", double(e.token_draft_conf));
      o.Set("arProb", double(e.ar_prob));
      o.Set("readProb", double(e.read_prob));
      o.Set("decoderProb", double(e.decoder_prob));
      if (e.has_fixation) {
        Napi::Object f = Napi::Object::New(env);
        f.Set("indices", ints(env, e.fixation.indices));
        f.Set("weights", floats(env, e.fixation.weights));
        o.Set("fixation", f);
      } else {
        o.Set("fixation", env.Null());
      }
      break;
    }
    case Event::Type::Retract:
      o.Set("type", "retract");
      o.Set("index", e.index);
      break;
    case Event::Type::RegionEnd:
      o.Set("type", "region_end");
      o.Set("text", e.text);
      o.Set("stats", stats_to_js(env, e.stats));
      break;
  }
  return o;
}

Napi::Object result_to_js(Napi::Env env, const DecodeResult& r) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array regions = Napi::Array::New(env, r.regions.size());
  for (size_t i = 0; i < r.regions.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("regionId", r.regions[i].id);
    x.Set("text", r.regions[i].text);
    x.Set("tokens", ints(env, r.regions[i].tokens));
    x.Set("stats", stats_to_js(env, r.regions[i].stats));
    regions.Set(uint32_t(i), x);
  }
  o.Set("regions", regions);
  o.Set("cancelled", r.cancelled);
  return o;
}

Napi::Object info_to_js(Napi::Env env, const EngineInfo& i) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("version", i.version);
  Napi::Array b = Napi::Array::New(env, i.backends.size());
  for (size_t k = 0; k < i.backends.size(); ++k) b.Set(uint32_t(k), i.backends[k]);
  o.Set("backends", b);
  o.Set("backend", i.backend);
  Napi::Object f = Napi::Object::New(env);
  for (const auto& kv : i.cpu_features) f.Set(kv.first, kv.second);
  o.Set("cpuFeatures", f);
  o.Set("cpuKernels", i.cpu_kernels);
  Napi::Array sets = Napi::Array::New(env, i.cpu_kernel_sets.size());
  for (size_t k = 0; k < i.cpu_kernel_sets.size(); ++k) sets.Set(uint32_t(k), i.cpu_kernel_sets[k]);
  o.Set("cpuKernelSets", sets);
  o.Set("threads", i.threads);
  return o;
}

DecodeOptions options_from_js(const Napi::Value& v) {
  DecodeOptions o;
  if (v.IsUndefined() || v.IsNull()) return o;
  Napi::Env env = v.Env();
  if (!v.IsObject()) type_error(env, "decode options must be an object");
  Napi::Object obj = v.As<Napi::Object>();
  Napi::Value mode = obj.Get("mode");
  if (!mode.IsUndefined()) {
    if (!mode.IsString()) type_error(env, "decode option mode must be a string");
    const std::string m = mode.As<Napi::String>();
    if (m == "ar") o.mode = DecodeMode::AR;
    else if (m == "spec") o.mode = DecodeMode::Spec;
    else if (m == "mtp") o.mode = DecodeMode::Mtp;
    else if (m == "diffusion") o.mode = DecodeMode::Diffusion;
    else type_error(env, "decode option mode must be 'ar', 'spec', 'mtp' or 'diffusion'");
  }
  Napi::Value bs = obj.Get("blockSize");
  if (bs.IsString() && bs.As<Napi::String>().Utf8Value() == "auto") o.block_size = 0;
  else if (bs.IsNumber()) {
    o.block_size = whole(obj, "blockSize", 0);
    if (o.block_size < 1) type_error(env, "decode option blockSize must be 'auto' or a positive integer");
  } else if (!bs.IsUndefined()) type_error(env, "decode option blockSize must be 'auto' or a number");
  o.tau_c = float(num(obj, "tauC", o.tau_c));
  o.refine_steps = whole(obj, "refineSteps", o.refine_steps);
  o.temperature = float(num(obj, "temperature", o.temperature));
  o.top_p = float(num(obj, "topP", o.top_p));
  const double seed = num(obj, "seed", double(o.seed));
  // Doubles hold every whole number up to 2^53 exactly; a negative or fractional seed has no uint64_t.
  if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == std::trunc(seed)))
    type_error(env, "decode option seed must be a whole number in 0..2^53");
  o.seed = uint64_t(seed);
  o.max_new_tokens = whole(obj, "maxNewTokens", o.max_new_tokens);
  o.batch_size = whole(obj, "batchSize", o.batch_size);
  Napi::Value guard = obj.Get("repeatGuard");
  if (!guard.IsUndefined()) {
    if (!guard.IsBoolean()) type_error(env, "decode option repeatGuard must be a boolean");
    o.repeat_guard = guard.As<Napi::Boolean>();
  }
  Napi::Value prior = obj.Get("readingPrior");
  if (!prior.IsUndefined()) {
    if (!prior.IsBoolean()) type_error(env, "decode option readingPrior must be a boolean");
    o.reading_prior = prior.As<Napi::Boolean>();
  }
  Napi::Value fx = obj.Get("fixation");
  if (!fx.IsUndefined()) {
    if (!fx.IsObject()) type_error(env, "decode option fixation must be an object");
    Napi::Object f = fx.As<Napi::Object>();
    Napi::Value en = f.Get("enabled");
    if (!en.IsUndefined()) {
      if (!en.IsBoolean()) type_error(env, "fixation.enabled must be a boolean");
      o.fixation.enabled = en.As<Napi::Boolean>();
    }
    o.fixation.warmup_steps = whole(f, "warmupSteps", o.fixation.warmup_steps);
    o.fixation.focal_layers = whole(f, "focalLayers", o.fixation.focal_layers);
    o.fixation.keep_ratio = float(num(f, "keepRatio", o.fixation.keep_ratio));
  }
  return o;
}

std::vector<RegionInput> regions_from_js(const Napi::Value& v) {
  Napi::Env env = v.Env();
  if (!v.IsArray()) type_error(env, "regions must be an array");
  Napi::Array a = v.As<Napi::Array>();
  std::vector<RegionInput> out;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value rv = a.Get(i);
    if (!rv.IsObject()) type_error(env, "each region must be an object");
    Napi::Object r = rv.As<Napi::Object>();
    RegionInput in;
    Napi::Value id = r.Get("id"), kind = r.Get("kind"), px = r.Get("pixels");
    if (!id.IsString() || !kind.IsString()) type_error(env, "region.id and region.kind must be strings");
    in.id = id.As<Napi::String>();
    in.kind = kind.As<Napi::String>();
    in.width = whole(r, "width", 0);
    in.height = whole(r, "height", 0);
    if (!px.IsTypedArray() || px.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      type_error(env, "region.pixels must be a Uint8Array");
    Napi::Uint8Array u8 = px.As<Napi::Uint8Array>();
    in.pixels.assign(u8.Data(), u8.Data() + u8.ElementLength());  // copied: the worker must not touch JS memory
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace saccade::js
