// The page-analysis networks in JS: loadPageAnalysis(dir, { threads?, backend? }) -> Promise<PageAnalysis>, whose
// run(net, images) runs one network on grey images off the JS thread (native/src/page/page_nets.h).
#include "page_analysis_js.h"

#include <mutex>
#include <thread>

#include "events_js.h"
#include "freed_memory.h"
#include "page/page_nets.h"

namespace saccade::js {

namespace {

// The most images one run() takes: a page's lines for the direction classifier fit many times over.
constexpr uint32_t kMaxImages = 4096;

struct PageNetsHandle {
  std::unique_ptr<PageNets> nets;
  std::mutex run_mu;  // one run at a time: the networks share the backend's thread pool
};

struct GreyImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;
};

class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(Napi::Env env, std::shared_ptr<PageNetsHandle> h, const PageNet& net, std::vector<GreyImage> images)
      : Napi::AsyncWorker(env), d_(Napi::Promise::Deferred::New(env)), h_(std::move(h)), net_(net),
        images_(std::move(images)) {}
  Napi::Promise Promise() { return d_.Promise(); }
  void Execute() override {
    try {
      std::lock_guard<std::mutex> lk(h_->run_mu);
      for (const GreyImage& im : images_) out_.push_back(run_page_net(net_, im.pixels.data(), im.height, im.width));
      return_freed_memory();
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Array all = Napi::Array::New(env, out_.size());
    for (size_t i = 0; i < out_.size(); ++i) {
      Napi::Array maps = Napi::Array::New(env, out_[i].size());
      for (size_t j = 0; j < out_[i].size(); ++j) {
        const ConvNetMap& m = out_[i][j];
        Napi::Float32Array data = Napi::Float32Array::New(env, m.data.size());
        std::copy(m.data.begin(), m.data.end(), data.Data());
        Napi::Object o = Napi::Object::New(env);
        o.Set("height", m.H);
        o.Set("width", m.W);
        o.Set("channels", m.C);
        o.Set("data", data);
        maps.Set(uint32_t(j), o);
      }
      all.Set(uint32_t(i), maps);
    }
    d_.Resolve(all);
  }
  void OnError(const Napi::Error& e) override { d_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred d_;
  std::shared_ptr<PageNetsHandle> h_;
  const PageNet& net_;
  std::vector<GreyImage> images_;
  std::vector<std::vector<ConvNetMap>> out_;
};

class PageAnalysisWrap : public Napi::ObjectWrap<PageAnalysisWrap> {
 public:
  static Napi::FunctionReference ctor;

  static void Init(Napi::Env env) {
    Napi::Function f = DefineClass(env, "PageAnalysis",
                                   {InstanceMethod("info", &PageAnalysisWrap::Info),
                                    InstanceMethod("run", &PageAnalysisWrap::Run),
                                    InstanceMethod("close", &PageAnalysisWrap::Close)});
    ctor = Napi::Persistent(f);
    ctor.SuppressDestruct();
  }

  explicit PageAnalysisWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PageAnalysisWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw Napi::TypeError::New(info.Env(), "use loadPageAnalysis()");
    handle_ = *info[0].As<Napi::External<std::shared_ptr<PageNetsHandle>>>().Data();
  }

 private:
  std::shared_ptr<PageNetsHandle> live(Napi::Env env) {
    if (!handle_) throw Napi::Error::New(env, "the page-analysis networks are closed");
    return handle_;
  }

  // info() -> { dir, backend, parameters, nets: { name: { height, width, multiple, labels, strides } } }
  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const PageNets& p = *live(env)->nets;
    Napi::Object o = Napi::Object::New(env), nets = Napi::Object::New(env);
    o.Set("dir", p.dir);
    o.Set("backend", p.backend->name());
    o.Set("parameters", double(p.parameter_count));
    for (const PageNet& n : p.nets) {
      Napi::Object e = Napi::Object::New(env);
      e.Set("height", n.height);
      e.Set("width", n.width);
      e.Set("multiple", n.multiple);
      Napi::Array labels = Napi::Array::New(env, n.labels.size()), strides = Napi::Array::New(env, n.strides.size());
      for (size_t i = 0; i < n.labels.size(); ++i) labels.Set(uint32_t(i), n.labels[i]);
      for (size_t i = 0; i < n.strides.size(); ++i) strides.Set(uint32_t(i), n.strides[i]);
      e.Set("labels", labels);
      e.Set("strides", strides);
      nets.Set(n.name, e);
    }
    o.Set("nets", nets);
    return o;
  }

  // run(net, [{ width, height, pixels: Uint8Array }]) -> Promise<[[{ height, width, channels, data }]]>
  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto h = live(env);
    if (info.Length() < 2 || !info[0].IsString() || !info[1].IsArray())
      throw Napi::TypeError::New(env, "run(net, images) takes a network name and an array of images");
    const PageNet* net = nullptr;
    try {
      net = &h->nets->get(info[0].As<Napi::String>());
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, e.what());
    }
    Napi::Array list = info[1].As<Napi::Array>();
    if (list.Length() > kMaxImages) throw Napi::RangeError::New(env, "run() takes at most 4096 images");
    std::vector<GreyImage> images;
    for (uint32_t i = 0; i < list.Length(); ++i) {
      if (!list.Get(i).IsObject()) throw Napi::TypeError::New(env, "each image is { width, height, pixels }");
      Napi::Object o = list.Get(i).As<Napi::Object>();
      GreyImage im;
      im.width = whole_number(o.Get("width"), "image width", 1, 1 << 16);
      im.height = whole_number(o.Get("height"), "image height", 1, 1 << 16);
      if (int64_t(im.width) * im.height > kMaxPageNetPixels) throw Napi::RangeError::New(env, "an image is too large");
      Napi::Value px = o.Get("pixels");
      if (!px.IsTypedArray() || px.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
        throw Napi::TypeError::New(env, "image pixels must be a Uint8Array");
      Napi::Uint8Array a = px.As<Napi::Uint8Array>();
      if (a.ElementLength() != size_t(im.width) * im.height)
        throw Napi::RangeError::New(env, "image pixels must hold width x height grey values");
      im.pixels.assign(a.Data(), a.Data() + a.ElementLength());
      images.push_back(std::move(im));
    }
    auto* w = new RunWorker(env, h, *net, std::move(images));
    w->Queue();
    return w->Promise();
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    handle_.reset();  // a running run() keeps its reference until it finishes
    return info.Env().Undefined();
  }

  std::shared_ptr<PageNetsHandle> handle_;
};

Napi::FunctionReference PageAnalysisWrap::ctor;

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::string dir, BackendOptions opts)
      : Napi::AsyncWorker(env), d_(Napi::Promise::Deferred::New(env)), dir_(std::move(dir)), opts_(std::move(opts)) {}
  Napi::Promise Promise() { return d_.Promise(); }
  void Execute() override {
    try {
      handle_ = std::make_shared<PageNetsHandle>();
      handle_->nets = load_page_nets(dir_, opts_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override {
    auto ext = Napi::External<std::shared_ptr<PageNetsHandle>>::New(Env(), &handle_);
    d_.Resolve(PageAnalysisWrap::ctor.New({ext}));
  }
  void OnError(const Napi::Error& e) override { d_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred d_;
  std::string dir_;
  BackendOptions opts_;
  std::shared_ptr<PageNetsHandle> handle_;
};

Napi::Value LoadPageAnalysis(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "loadPageAnalysis(dir, options?)");
  BackendOptions opts;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    const int max_threads = 2 * int(std::max(1u, std::thread::hardware_concurrency()));
    if (!o.Get("threads").IsUndefined()) opts.threads = whole_number(o.Get("threads"), "threads", 1, max_threads);
    if (o.Get("backend").IsString()) opts.name = o.Get("backend").As<Napi::String>();
  }
  auto* w = new LoadWorker(env, info[0].As<Napi::String>(), opts);
  w->Queue();
  return w->Promise();
}

}  // namespace

void init_page_analysis(Napi::Env env, Napi::Object exports) {
  PageAnalysisWrap::Init(env);
  exports.Set("loadPageAnalysis", Napi::Function::New(env, LoadPageAnalysis));
}

}  // namespace saccade::js
