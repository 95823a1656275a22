// The N-API surface (native/README.md): info(), loadModel() and the Model object, loadPageAnalysis().
#include <napi.h>

#include <algorithm>
#include <climits>
#include <thread>

#include "decode/block_size.h"
#include "decode/engine.h"
#include "decode_job.h"
#include "engine_info.h"
#include "events_js.h"
#include "model/line_encoder.h"
#include "gray_image_js.h"
#include "page_analysis_js.h"
#include "util/utf8.h"

namespace saccade::js {

namespace {

// The arithmetic the model runs in: fp32, with the line encoder's pointwise convolutions in reduced products
// where the backend chose them.
std::string compute_dtype(const Model& m) {
  if (!m.line) return "float32";
  const LineVision& lv = *m.line;
  const Weight* pointwise = !lv.blocks.empty() ? &lv.blocks[0].pw.pointwise : !lv.v6_blocks.empty() ? &lv.v6_blocks[0].fc1 : nullptr;
  if (pointwise && pointwise->format == WeightFormat::BF16Pairs) return "float32; bf16 products in the line encoder's pointwise convolutions";
  if (pointwise && pointwise->format == WeightFormat::Q8Groups) return "float32; int8 products in the line encoder's pointwise convolutions";
  return "float32";
}

class ModelWrap : public Napi::ObjectWrap<ModelWrap> {
 public:
  static Napi::FunctionReference ctor;

  static void Init(Napi::Env env) {
    Napi::Function f = DefineClass(env, "Model",
                                   {InstanceMethod("info", &ModelWrap::Info), InstanceMethod("decode", &ModelWrap::Decode),
                                    InstanceMethod("benchmark", &ModelWrap::Benchmark),
                                    InstanceMethod("vocabulary", &ModelWrap::Vocabulary),
                                    InstanceMethod("close", &ModelWrap::Close)});
    ctor = Napi::Persistent(f);
    ctor.SuppressDestruct();
  }

  explicit ModelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModelWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw Napi::TypeError::New(info.Env(), "use loadModel()");
    handle_ = *info[0].As<Napi::External<std::shared_ptr<ModelHandle>>>().Data();
  }

 private:
  std::shared_ptr<ModelHandle> live(Napi::Env env) {
    if (!handle_) throw Napi::Error::New(env, "model is closed");
    return handle_;
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto h = live(env);
    const Model& m = *h->model;
    Napi::Object o = Napi::Object::New(env);
    o.Set("dir", m.dir);
    o.Set("modelType", m.cfg.model_type);
    o.Set("backend", m.backend->name());
    o.Set("cpuKernels", m.backend->kernel_isa());
    o.Set("threads", m.backend->threads());
    o.Set("weightDtype", m.weight_dtype);
    o.Set("computeDtype", compute_dtype(m));
    o.Set("parameters", double(m.parameter_count));
    o.Set("vocabSize", m.cfg.text.vocab_size);
    o.Set("decoderLayers", m.cfg.text.num_layers);
    o.Set("hiddenSize", m.cfg.text.hidden_size);
    o.Set("diffusionBlockSize", m.cfg.diffusion_block_size);
    o.Set("mtpHead", bool(m.mtp));
    o.Set("maxImageTokens", m.cfg.vision.line ? m.cfg.image.max_width / m.cfg.image.column : m.cfg.image.max_image_tokens);
    return o;
  }

  // vocabulary() -> string[]: each id's text as the tokenizer read at load has it ("" for special tokens), so
  // that the UI never reads tokenizer.json itself (a second parser, and a file that may have changed since).
  // A byte-level BPE token may be part of a character: its bytes are shown as U+FFFD.
  Napi::Value Vocabulary(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto h = live(env);
    const Tokenizer& t = h->model->tokenizer;
    Napi::Array out = Napi::Array::New(env, size_t(t.size()));
    std::string text;
    for (int id = 0; id < t.size(); ++id) {
      text.clear();
      append_lossy_utf8(t.piece(id), false, text);
      out.Set(uint32_t(id), Napi::String::New(env, text));
    }
    return out;
  }

  Napi::Value Decode(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto h = live(env);
    if (info.Length() < 3 || !info[2].IsFunction())
      throw Napi::TypeError::New(env, "decode(regions, options, onEvents) needs an onEvents function");
    return start_decode(env, h, regions_from_js(info[0]), options_from_js(info[1]), info[2].As<Napi::Function>());
  }

  // benchmark({ widths?, context?, repeats? }) -> Promise<{ widths, seconds, context }>
  Napi::Value Benchmark(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto h = live(env);
    std::vector<int> widths = calibration_widths();
    int context = 512, repeats = 3;
    if (info.Length() > 0 && info[0].IsObject()) {
      Napi::Object o = info[0].As<Napi::Object>();
      if (o.Get("widths").IsArray()) {
        Napi::Array a = o.Get("widths").As<Napi::Array>();
        widths.clear();
        for (uint32_t i = 0; i < a.Length(); ++i) widths.push_back(whole_number(a.Get(i), "benchmark widths", 1, 1024));
      }
      if (!o.Get("context").IsUndefined()) context = whole_number(o.Get("context"), "benchmark context", 1, INT_MAX);
      if (!o.Get("repeats").IsUndefined()) repeats = whole_number(o.Get("repeats"), "benchmark repeats", 1, 1000);
    }
    if (context > h->model->cfg.text.max_position_embeddings) throw Napi::RangeError::New(env, "benchmark context out of range");
    auto* w = new BenchmarkWorker(env, h, widths, context, repeats);
    w->Queue();
    return w->Promise();
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    handle_.reset();  // running decodes keep their reference until they finish
    return info.Env().Undefined();
  }

  class BenchmarkWorker : public Napi::AsyncWorker {
   public:
    BenchmarkWorker(Napi::Env env, std::shared_ptr<ModelHandle> h, std::vector<int> widths, int context, int repeats)
        : Napi::AsyncWorker(env), d_(Napi::Promise::Deferred::New(env)), h_(std::move(h)), widths_(std::move(widths)),
          context_(context), repeats_(repeats) {}
    Napi::Promise Promise() { return d_.Promise(); }
    void Execute() override {
      try {
        std::lock_guard<std::mutex> lk(h_->run_mu);
        costs_ = measure_forward_costs(*h_->model, widths_, context_, repeats_);
      } catch (const std::exception& e) {
        SetError(e.what());
      }
    }
    void OnOK() override {
      Napi::Env env = Env();
      Napi::Object o = Napi::Object::New(env);
      Napi::Array w = Napi::Array::New(env, costs_.widths.size()), s = Napi::Array::New(env, costs_.seconds.size());
      for (size_t i = 0; i < costs_.widths.size(); ++i) {
        w.Set(uint32_t(i), costs_.widths[i]);
        s.Set(uint32_t(i), costs_.seconds[i]);
      }
      o.Set("widths", w);
      o.Set("seconds", s);
      o.Set("context", costs_.context);
      d_.Resolve(o);
    }
    void OnError(const Napi::Error& e) override { d_.Reject(e.Value()); }

   private:
    Napi::Promise::Deferred d_;
    std::shared_ptr<ModelHandle> h_;
    std::vector<int> widths_;
    int context_, repeats_;
    ForwardCosts costs_;
  };

  std::shared_ptr<ModelHandle> handle_;
};

Napi::FunctionReference ModelWrap::ctor;

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::string dir, LoadOptions opts)
      : Napi::AsyncWorker(env), d_(Napi::Promise::Deferred::New(env)), dir_(std::move(dir)), opts_(std::move(opts)) {}
  Napi::Promise Promise() { return d_.Promise(); }
  void Execute() override {
    try {
      handle_ = std::make_shared<ModelHandle>();
      handle_->model = load_model(dir_, opts_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override {
    Napi::Env env = Env();
    auto ext = Napi::External<std::shared_ptr<ModelHandle>>::New(env, &handle_);
    d_.Resolve(ModelWrap::ctor.New({ext}));
  }
  void OnError(const Napi::Error& e) override { d_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred d_;
  std::string dir_;
  LoadOptions opts_;
  std::shared_ptr<ModelHandle> handle_;
};

Napi::Value Info(const Napi::CallbackInfo& info) {
  try {
    return info_to_js(info.Env(), engine_info());
  } catch (const std::exception& e) {  // a kernel set named in SACCADE_CPU_KERNELS that this CPU cannot run
    throw Napi::Error::New(info.Env(), e.what());
  }
}

// loadModel(dir, { threads?, backend?, reducedPrecision? }) -> Promise<Model>
Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "loadModel(dir, options?)");
  LoadOptions opts;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    // Each thread is a worker of the CPU backend's pool: beyond twice the hardware threads they only starve the
    // machine (--threads 100000 made ~20,000 before anything checked).
    const int max_threads = 2 * int(std::max(1u, std::thread::hardware_concurrency()));
    if (!o.Get("threads").IsUndefined()) opts.backend.threads = whole_number(o.Get("threads"), "threads", 1, max_threads);
    if (o.Get("backend").IsString()) opts.backend.name = o.Get("backend").As<Napi::String>();
    if (o.Get("reducedPrecision").IsBoolean()) opts.backend.reduced_precision = o.Get("reducedPrecision").As<Napi::Boolean>();
  }
  auto* w = new LoadWorker(env, info[0].As<Napi::String>(), opts);
  w->Queue();
  return w->Promise();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  ModelWrap::Init(env);
  exports.Set("info", Napi::Function::New(env, Info));
  exports.Set("loadModel", Napi::Function::New(env, LoadModel));
  init_page_analysis(env, exports);
  init_gray_image(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(saccade, Init)

}  // namespace saccade::js
