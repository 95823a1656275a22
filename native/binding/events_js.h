#pragma once
// Conversions between engine structs and the JS contract (common/engine-types.ts).
#include <napi.h>

#include <string>

#include "decode/engine.h"
#include "engine_info.h"

namespace saccade::js {

Napi::Object event_to_js(Napi::Env env, const Event& e);
Napi::Object stats_to_js(Napi::Env env, const RegionStats& s);
Napi::Object result_to_js(Napi::Env env, const DecodeResult& r);
Napi::Object info_to_js(Napi::Env env, const EngineInfo& i);

// An option given as a JS number: a whole number in lo..hi, or a RangeError naming it.
int whole_number(const Napi::Value& v, const std::string& name, int lo, int hi);

// Missing fields take the defaults of DEFAULT_DECODE_OPTIONS; wrong types throw a TypeError.
DecodeOptions options_from_js(const Napi::Value& v);
std::vector<RegionInput> regions_from_js(const Napi::Value& v);

}  // namespace saccade::js
