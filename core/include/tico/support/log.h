// Logging facade. spdlog lives behind this header so that translation units that include
// LibTorch (which bundles its own fmt) never see spdlog or Debian's fmt.
//
// The level comes from TICO_LOG as in the original converter: 1 fatal/error, 2 warning,
// 3 info, 4 debug (0 silences everything but errors). `tico-run -v` is TICO_LOG=4.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace tico::log {

enum class Level : int { Error = 1, Warning = 2, Info = 3, Debug = 4 };

// Current threshold; messages above it are dropped.
Level level();
void setLevel(Level level);
bool enabled(Level level);

// Emits one message (a trailing newline is added by the sink).
void write(Level level, std::string_view message);

// Collects a message with operator<< and emits it on destruction. Use through the macros,
// which skip building the message when the level is disabled.
class Line {
public:
  explicit Line(Level level) : level_(level) {}
  ~Line() { write(level_, stream_.str()); }
  template <typename T> Line &operator<<(const T &value) {
    stream_ << value;
    return *this;
  }

private:
  Level level_;
  std::ostringstream stream_;
};

} // namespace tico::log

#define TICO_LOG(LEVEL)                                                                            \
  if (!::tico::log::enabled(::tico::log::Level::LEVEL)) {                                          \
  } else                                                                                           \
    ::tico::log::Line(::tico::log::Level::LEVEL)

#define TICO_DEBUG TICO_LOG(Debug)
#define TICO_INFO TICO_LOG(Info)
#define TICO_WARN TICO_LOG(Warning)
#define TICO_ERROR TICO_LOG(Error)
