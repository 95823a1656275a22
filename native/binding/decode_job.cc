#include "decode_job.h"

#include <chrono>
#include <thread>

#include "events_js.h"
#include "freed_memory.h"

namespace saccade::js {

namespace {

// What one TSFN call carries to the JS thread.
struct Batch {
  std::vector<Event> events;
  bool final = false;
  DecodeResult result;
  std::string error;  // non-empty: reject
};

struct Job;
void deliver(Napi::Env env, Napi::Function, Job* job, Batch* b);
using Tsfn = Napi::TypedThreadSafeFunction<Job, Batch, deliver>;

struct Job final : EventSink {
  std::shared_ptr<ModelHandle> model;
  std::vector<RegionInput> regions;
  DecodeOptions opts;
  std::atomic<bool> cancel{false};
  Napi::Promise::Deferred deferred;
  Napi::FunctionReference on_events;
  std::string callback_error;  // set on the JS thread when onEvents throws
  Tsfn tsfn;
  std::thread thread;

  std::vector<Event> pending;
  std::chrono::steady_clock::time_point last_flush = std::chrono::steady_clock::now();

  explicit Job(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}

  void emit(Event&& e) override {
    pending.push_back(std::move(e));
    const auto now = std::chrono::steady_clock::now();
    if (pending.size() >= 64 || now - last_flush >= std::chrono::milliseconds(16)) flush(now);
  }

  void flush(std::chrono::steady_clock::time_point now) {
    last_flush = now;
    if (pending.empty()) return;
    auto* b = new Batch;
    b->events.swap(pending);
    if (tsfn.NonBlockingCall(b) != napi_ok) delete b;  // environment is shutting down
  }

  void run() {
    auto* fin = new Batch;
    fin->final = true;
    try {
      std::lock_guard<std::mutex> lk(model->run_mu);
      if (!model->model) throw EngineError("model is closed");
      fin->result = decode_regions(*model->model, regions, opts, *this, cancel, &model->memory);
    } catch (const std::exception& e) {
      fin->error = e.what();
    } catch (...) {
      fin->error = "unknown native error";
    }
    return_freed_memory();
    flush(std::chrono::steady_clock::now());
    if (tsfn.NonBlockingCall(fin) != napi_ok) delete fin;
    tsfn.Release();
  }
};

void deliver(Napi::Env env, Napi::Function, Job* job, Batch* b) {
  std::unique_ptr<Batch> batch(b);
  if (env == nullptr || batch == nullptr) return;  // torn down
  if (!batch->events.empty() && job->callback_error.empty()) {
    Napi::Array arr = Napi::Array::New(env, batch->events.size());
    for (size_t i = 0; i < batch->events.size(); ++i) arr.Set(uint32_t(i), event_to_js(env, batch->events[i]));
    try {
      job->on_events.Call({arr});
    } catch (const Napi::Error& e) {
      job->callback_error = std::string("onEvents threw: ") + e.Message();
      job->cancel.store(true);
    }
  }
  if (batch->final) {
    if (!job->callback_error.empty())
      job->deferred.Reject(Napi::Error::New(env, job->callback_error).Value());
    else if (!batch->error.empty())
      job->deferred.Reject(Napi::Error::New(env, batch->error).Value());
    else
      job->deferred.Resolve(result_to_js(env, batch->result));
  }
}

}  // namespace

Napi::Object start_decode(Napi::Env env, std::shared_ptr<ModelHandle> model, std::vector<RegionInput> regions,
                          DecodeOptions opts, Napi::Function on_events) {
  auto job = std::make_shared<Job>(env);
  job->model = std::move(model);
  job->regions = std::move(regions);
  job->opts = opts;
  job->on_events = Napi::Persistent(on_events);
  // The TSFN's finaliser runs on the JS thread after the worker's Release: join the thread there and drop
  // the job.
  auto* keep = new std::shared_ptr<Job>(job);
  job->tsfn = Tsfn::New(env, "saccade.decode", 0, 1, job.get(),
                        [keep](Napi::Env, void*, Job* j) {
                          if (j->thread.joinable()) j->thread.join();
                          delete keep;
                        },
                        static_cast<void*>(nullptr));
  job->thread = std::thread([j = job.get()] { j->run(); });

  Napi::Object handle = Napi::Object::New(env);
  handle.Set("promise", job->deferred.Promise());
  std::weak_ptr<Job> weak = job;
  handle.Set("cancel", Napi::Function::New(env, [weak](const Napi::CallbackInfo&) {
               if (auto j = weak.lock()) j->cancel.store(true);
             }));
  return handle;
}

}  // namespace saccade::js
