// Progress of a long step (calibration) on stderr: a bar redrawn in place with the elapsed
// time and an estimate of the time left when stderr is a terminal, plain lines every 10 %
// otherwise (logs and CI stay readable).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tico::quant {

class Progress {
public:
  // `enabled` false: silent. `bar` true: a redrawn bar, else plain lines.
  Progress(std::string title, uint64_t total, bool bar, bool enabled = true);
  void advance(uint64_t steps);
  void finish();

private:
  void draw(bool final);
  std::string title_;
  uint64_t total_;
  uint64_t done_ = 0;
  bool bar_;
  bool enabled_;
  int last_decile_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1:05:03", "4:07", "0:09".
std::string formatDuration(double seconds);

} // namespace tico::quant
