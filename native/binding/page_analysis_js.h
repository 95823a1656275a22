#pragma once
// loadPageAnalysis() and the PageAnalysis object (page_analysis_js.cc).
#include <napi.h>

namespace saccade::js {

void init_page_analysis(Napi::Env env, Napi::Object exports);

}  // namespace saccade::js
