//===- Timing.h - One timing policy for every implementation ----*- C++ -*-===//
//
// Every implementation is timed the same way (torch_peer.py implements the
// same rule in Python): the first call is the warm-up (and the one whose
// outputs are checked); then timed calls follow until at least `minReps`
// were made and `targetSeconds` have passed, or `maxReps` were made. A call
// slower than targetSeconds / normalReps therefore gets fewer than
// `normalReps` timed calls (at least `minReps`), which the report flags.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_TIMING_H
#define RNN_BENCH_TIMING_H

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace rnnc::bench {

struct Policy {
  double targetSeconds = 1.0; ///< time spent on timed calls, at least
  int minReps = 3;            ///< timed calls, at least
  int normalReps = 5;         ///< fewer than this is flagged in the report
  int maxReps = 200;
};

/// The timed calls of one implementation on one problem, in seconds.
struct Stats {
  std::vector<double> seconds;
  double median = 0, min = 0, max = 0;

  int reps() const { return static_cast<int>(seconds.size()); }
  bool empty() const { return seconds.empty(); }
  /// Fills median, min and max from `seconds`.
  void summarize();
};

inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Times `call` (already warmed up) under `policy`.
template <typename Fn>
Stats measure(const Policy &policy, Fn &&call) {
  Stats stats;
  double start = now();
  while (static_cast<int>(stats.seconds.size()) < policy.maxReps) {
    int reps = static_cast<int>(stats.seconds.size());
    double elapsed = now() - start;
    if (reps >= policy.minReps && elapsed >= policy.targetSeconds)
      break;
    double before = now();
    call();
    stats.seconds.push_back(now() - before);
  }
  stats.summarize();
  return stats;
}

/// Rounds of measureAlternating. Over many calls the shared machine's slow
/// drifts, not the calls, move a median by several percent, so the
/// implementations compared take turns: each ratio between them is then
/// measured over the same stretch of time.
constexpr int kAlternatingRounds = 5;
/// A call shorter than this fraction of the target is short: its turns
/// start with an untimed call, which brings its data back into cache after
/// the others ran. A longer call refills the cache in a negligible part of
/// itself.
constexpr double kAlternatingCallFraction = 1.0 / 10;

/// Times `calls` (each already warmed up) in kAlternatingRounds turns, each
/// call timed for targetSeconds / kAlternatingRounds per turn (at least one
/// call); with `warmEachTurn`, every turn after the first starts with one
/// untimed call. One Stats per call over all its turns.
template <typename... Fns>
std::vector<Stats> measureAlternating(const Policy &policy, bool warmEachTurn,
                                      Fns &&...calls) {
  constexpr size_t n = sizeof...(Fns);
  std::vector<Stats> stats(n);
  Policy turn = policy;
  turn.targetSeconds = policy.targetSeconds / kAlternatingRounds;
  turn.minReps = (policy.minReps + kAlternatingRounds - 1) / kAlternatingRounds;
  turn.maxReps = std::max(1, policy.maxReps / kAlternatingRounds);
  for (int round = 0; round < kAlternatingRounds; ++round) {
    size_t i = 0;
    auto take = [&](auto &call) {
      if (round > 0 && warmEachTurn)
        call();
      Stats part = measure(turn, call);
      stats[i].seconds.insert(stats[i].seconds.end(), part.seconds.begin(),
                              part.seconds.end());
      ++i;
    };
    (take(calls), ...);
  }
  for (Stats &each : stats)
    each.summarize();
  return stats;
}

/// "1.23 ms", "456 us", "7.89 s": three significant digits.
std::string formatSeconds(double seconds);

} // namespace rnnc::bench

#endif // RNN_BENCH_TIMING_H
