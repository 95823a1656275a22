#pragma once
// The page pipeline's pixel work in JS (gray_image_js.cc; native/src/page/gray_image.h).
#include <napi.h>

namespace saccade::js {

void init_gray_image(Napi::Env env, Napi::Object exports);

}  // namespace saccade::js
