// libprofdiff_cupti.so's entry point: the CUDA driver loads the library named
// by CUDA_INJECTION64_PATH and calls InitializeInjection() during cuInit. It
// reads the environment (injection_config.h), starts a CuptiSession and
// arranges for the last span to be sent at exit. A failure is logged and leaves
// the application running without collection.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "agent/cupti/cupti_session.h"
#include "agent/cupti/injection_config.h"
#include "base/hostname.h"
#include "base/log.h"

namespace {

using profdiff::agent::cupti::CuptiSession;

// The one mutable global: CUPTI's buffer callbacks carry no user data, so the
// trampolines find the session here. Owned by Holder; published after
// construction.
std::atomic<CuptiSession*> g_session{nullptr};

// Owns the session until AtExit, which releases it on purpose (see there).
std::unique_ptr<CuptiSession>& Holder() {
  static std::unique_ptr<CuptiSession> holder;
  return holder;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size,
                              size_t* max_records) {
  CuptiSession* session = g_session.load(std::memory_order_acquire);
  if (session == nullptr) {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  session->OnBufferRequested(buffer, size, max_records);
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream,
                              uint8_t* buffer, size_t size, size_t valid) {
  try {
    CuptiSession* session = g_session.load(std::memory_order_acquire);
    if (session != nullptr)
      session->OnBufferCompleted(context, stream, buffer, size, valid);
  } catch (...) {
  }
}

void AtExit() {
  try {
    if (CuptiSession* session = g_session.load(std::memory_order_acquire))
      session->Shutdown();
    // A buffer callback after this (CUDA tearing down) finds no session and
    // drops its records.
    g_session.store(nullptr, std::memory_order_release);
    // Kept alive to the end: a callback that loaded the pointer just before
    // must not meet a destroyed session, and static destruction order across
    // libraries is not ours to choose.
    static_cast<void>(Holder().release());
  } catch (...) {
  }
}

// NVTX reaches CUPTI's callbacks only when NVTX loads libcupti as its
// injection; point it there unless the user did. An NVTX call made before
// cuInit has already looked (and found nothing).
void PointNvtxAtCupti() {
  if (std::getenv("NVTX_INJECTION64_PATH") != nullptr) return;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) != 0 &&
      info.dli_fname != nullptr) {
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
  }
}

int Initialize() {
  const std::string hostname = profdiff::base::LocalHostname();
  absl::StatusOr<profdiff::agent::cupti::InjectionConfig> config =
      profdiff::agent::cupti::InjectionConfigFromEnvironment(
          [](std::string_view name) -> std::optional<std::string> {
            const char* value = std::getenv(std::string(name).c_str());
            if (value == nullptr) return std::nullopt;
            return std::string(value);
          },
          hostname, getpid());
  if (!config.ok()) {
    PD_LOG(ERROR, "profdiff CUPTI injection disabled: %s",
           config.status().message());
    return 0;
  }
  profdiff::base::SetLogVerbosity(config->log_verbosity);
  PointNvtxAtCupti();
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  Holder();  // constructed before std::atexit below: see Holder
  auto session = std::make_unique<CuptiSession>(*std::move(config), hostname,
                                                getpid(), now);
  g_session.store(session.get(), std::memory_order_release);
  if (absl::Status started = session->Begin(BufferRequested, BufferCompleted);
      !started.ok()) {
    g_session.store(nullptr, std::memory_order_release);
    PD_LOG(ERROR, "profdiff CUPTI injection disabled: %s", started.message());
    // Callbacks CUPTI may still make find no session; the object must outlive
    // them.
    Holder() = std::move(session);
    return 0;
  }
  Holder() = std::move(session);
  std::atexit(AtExit);
  return 1;
}

}  // namespace

// Called by the CUDA driver (CUDA_INJECTION64_PATH). Returns 1 when collection
// started.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static std::once_flag once;
  static int result = 0;
  try {
    std::call_once(once, [] { result = Initialize(); });
  } catch (...) {
    return 0;
  }
  return result;
}
