#pragma once
// One model.decode() call: runs on its own native thread and streams events to JS through a
// ThreadSafeFunction in batches (every ~16 ms or 64 events), never blocking either thread.
#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "decode/engine.h"
#include "model/model.h"

namespace saccade::js {

// A loaded model shared by its JS wrapper and the decode jobs running on it.
struct ModelHandle {
  std::unique_ptr<Model> model;
  std::mutex run_mu;      // one decode or benchmark at a time per model
  ModelMemory memory;  // what decoding has measured and learnt on this model (engine.h)
};

// Starts the job; returns { promise, cancel }.
Napi::Object start_decode(Napi::Env env, std::shared_ptr<ModelHandle> model, std::vector<RegionInput> regions,
                          DecodeOptions opts, Napi::Function on_events);

}  // namespace saccade::js
