// The page pipeline's pixel work, synchronous on the JS thread (a line's view takes microseconds here against
// milliseconds in JS): resampleGray(image, width, height), blur3Gray(image, centre, side) and
// sampleRectGray(page, { cx, cy, width, height, ux, uy }, width, height), each returning a new
// { width, height, data } image. Images are { width, height, data: Uint8Array }, as main/node/pipeline/gray-image.ts.
#include "gray_image_js.h"

#include <cmath>
#include <string>

#include "events_js.h"
#include "page/gray_image.h"

namespace saccade::js {

namespace {

// Sides and areas of images in and out: the page pipeline's pages are at most 16 megapixels
// (main/node/pipeline/source/page-source.ts), and nothing cut from them or made for a network is larger.
constexpr int kMaxSide = 1 << 16;
constexpr int64_t kMaxPixels = int64_t(1) << 26;

GrayView view_from_js(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsObject()) throw Napi::TypeError::New(env, std::string(what) + " must be { width, height, data }");
  Napi::Object o = v.As<Napi::Object>();
  GrayView g;
  g.width = whole_number(o.Get("width"), std::string(what) + " width", 1, kMaxSide);
  g.height = whole_number(o.Get("height"), std::string(what) + " height", 1, kMaxSide);
  if (int64_t(g.width) * g.height > kMaxPixels) throw Napi::RangeError::New(env, std::string(what) + " is too large");
  Napi::Value px = o.Get("data");
  if (!px.IsTypedArray() || px.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    throw Napi::TypeError::New(env, std::string(what) + " data must be a Uint8Array");
  Napi::Uint8Array a = px.As<Napi::Uint8Array>();
  if (a.ElementLength() != size_t(g.width) * g.height)
    throw Napi::RangeError::New(env, std::string(what) + " data must hold width x height grey values");
  g.data = a.Data();
  return g;
}

struct OutSize {
  int width, height;
};

OutSize out_size(Napi::Env env, const Napi::Value& w, const Napi::Value& h) {
  OutSize s{whole_number(w, "output width", 1, kMaxSide), whole_number(h, "output height", 1, kMaxSide)};
  if (int64_t(s.width) * s.height > kMaxPixels) throw Napi::RangeError::New(env, "the output image is too large");
  return s;
}

double finite_number(Napi::Env env, const Napi::Value& v, const std::string& name) {
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue()))
    throw Napi::TypeError::New(env, name + " must be a finite number");
  return v.As<Napi::Number>().DoubleValue();
}

Napi::Object image_to_js(Napi::Env env, OutSize s, Napi::Uint8Array data) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("width", s.width);
  o.Set("height", s.height);
  o.Set("data", data);
  return o;
}

Napi::Value ResampleGray(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3) throw Napi::TypeError::New(env, "resampleGray(image, width, height)");
  const GrayView src = view_from_js(env, info[0], "image");
  const OutSize s = out_size(env, info[1], info[2]);
  Napi::Uint8Array out = Napi::Uint8Array::New(env, size_t(s.width) * s.height);
  resample_gray(src, s.width, s.height, out.Data());
  return image_to_js(env, s, out);
}

Napi::Value Blur3Gray(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3) throw Napi::TypeError::New(env, "blur3Gray(image, centre, side)");
  const GrayView src = view_from_js(env, info[0], "image");
  const double centre = finite_number(env, info[1], "centre"), side = finite_number(env, info[2], "side");
  // Weights of a blur: the rounding of the result assumes no negative values.
  if (centre < 0 || side < 0 || centre + 2 * side > 1 + 1e-9) throw Napi::RangeError::New(env, "blur weights must be nonnegative and sum to at most 1");
  Napi::Uint8Array out = Napi::Uint8Array::New(env, size_t(src.width) * src.height);
  blur3_gray(src, centre, side, out.Data());
  return image_to_js(env, {src.width, src.height}, out);
}

Napi::Value SampleRectGray(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[1].IsObject()) throw Napi::TypeError::New(env, "sampleRectGray(page, { cx, cy, width, height, ux, uy }, width, height)");
  const GrayView page = view_from_js(env, info[0], "page");
  Napi::Object r = info[1].As<Napi::Object>();
  SampledRect rect;
  rect.cx = finite_number(env, r.Get("cx"), "cx");
  rect.cy = finite_number(env, r.Get("cy"), "cy");
  rect.box_width = finite_number(env, r.Get("width"), "rectangle width");
  rect.box_height = finite_number(env, r.Get("height"), "rectangle height");
  rect.ux = finite_number(env, r.Get("ux"), "ux");
  rect.uy = finite_number(env, r.Get("uy"), "uy");
  const OutSize s = out_size(env, info[2], info[3]);
  Napi::Uint8Array out = Napi::Uint8Array::New(env, size_t(s.width) * s.height);
  sample_rect_gray(page, rect, s.width, s.height, out.Data());
  return image_to_js(env, s, out);
}

}  // namespace

void init_gray_image(Napi::Env env, Napi::Object exports) {
  exports.Set("resampleGray", Napi::Function::New(env, ResampleGray));
  exports.Set("blur3Gray", Napi::Function::New(env, Blur3Gray));
  exports.Set("sampleRectGray", Napi::Function::New(env, SampleRectGray));
}

}  // namespace saccade::js
