#include "quant/progress.h"

#include <cmath>
#include <cstdio>

namespace tico::quant {

std::string formatDuration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

Progress::Progress(std::string title, uint64_t total, bool bar, bool enabled)
    : title_(std::move(title)), total_(total), bar_(bar), enabled_(enabled && total > 0),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void Progress::advance(uint64_t steps) {
  done_ = std::min(total_, done_ + steps);
  if (!enabled_)
    return;
  const auto now = std::chrono::steady_clock::now();
  if (bar_) {
    // At most ten redraws a second: a redraw per node would cost more than small nodes.
    if (now - last_draw_ >= std::chrono::milliseconds(100)) {
      last_draw_ = now;
      draw(false);
    }
    return;
  }
  const int decile = static_cast<int>(done_ * 10 / total_);
  if (decile > last_decile_ && decile < 10) {
    last_decile_ = decile;
    draw(false);
  }
}

void Progress::finish() {
  if (enabled_)
    draw(true);
  enabled_ = false;
}

void Progress::draw(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double fraction = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  std::string eta = "?";
  if (done_ > 0)
    eta = formatDuration(elapsed * (1.0 - fraction) / fraction);
  if (bar_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string cells(static_cast<std::size_t>(filled), '#');
    cells.append(static_cast<std::size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "\r%s [%s] %3d%%  %s elapsed  %s left ", title_.c_str(), cells.c_str(),
                 static_cast<int>(fraction * 100), formatDuration(elapsed).c_str(), final ? "0:00" : eta.c_str());
    if (final)
      std::fputc('\n', stderr);
  } else if (final) {
    std::fprintf(stderr, "%s: done in %s\n", title_.c_str(), formatDuration(elapsed).c_str());
  } else {
    std::fprintf(stderr, "%s: %d%% (%s elapsed, about %s left)\n", title_.c_str(), static_cast<int>(fraction * 100),
                 formatDuration(elapsed).c_str(), eta.c_str());
  }
  std::fflush(stderr);
}

} // namespace tico::quant
