//===- Timing.cpp - One timing policy for every implementation ------------===//

#include "Timing.h"

#include <algorithm>
#include <cstdio>

using namespace rnnc::bench;

void Stats::summarize() {
  if (seconds.empty())
    return;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  min = sorted.front();
  max = sorted.back();
}

std::string rnnc::bench::formatSeconds(double seconds) {
  const char *unit = "s";
  double value = seconds;
  if (seconds < 1e-3) {
    unit = "us";
    value = seconds * 1e6;
  } else if (seconds < 1) {
    unit = "ms";
    value = seconds * 1e3;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer),
                value >= 100  ? "%.0f %s"
                : value >= 10 ? "%.1f %s"
                              : "%.2f %s",
                value, unit);
  return buffer;
}
