#include "tico/support/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace tico::log {
namespace {

Level levelFromEnv() {
  const char *env = std::getenv("TICO_LOG");
  if (env == nullptr || *env == '\0')
    return Level::Warning;
  int value = std::atoi(env);
  if (value <= 1)
    return Level::Error;
  if (value >= 4)
    return Level::Debug;
  return static_cast<Level>(value);
}

std::atomic<int> &threshold() {
  static std::atomic<int> value{static_cast<int>(levelFromEnv())};
  return value;
}

spdlog::logger &logger() {
  // Diagnostics go to stderr so tool output on stdout stays machine-readable.
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("tico", sink);
    l->set_pattern("[tico] %^%l%$: %v");
    l->set_level(spdlog::level::trace);
    return l;
  }();
  return *instance;
}

spdlog::level::level_enum toSpd(Level level) {
  switch (level) {
  case Level::Error:
    return spdlog::level::err;
  case Level::Warning:
    return spdlog::level::warn;
  case Level::Info:
    return spdlog::level::info;
  case Level::Debug:
    return spdlog::level::debug;
  }
  return spdlog::level::info;
}

} // namespace

Level level() { return static_cast<Level>(threshold().load()); }
void setLevel(Level level) { threshold().store(static_cast<int>(level)); }
bool enabled(Level level) { return static_cast<int>(level) <= threshold().load(); }

void write(Level level, std::string_view message) {
  if (!enabled(level))
    return;
  logger().log(toSpd(level), "{}", message);
}

} // namespace tico::log
