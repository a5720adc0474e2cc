//===- TimingTest.cpp - The benchmark's timing policy ---------------------===//

#include "Timing.h"

#include <gtest/gtest.h>

using namespace rnnc::bench;

namespace {

/// A call that records who ran, so the tests see the order of the calls.
struct Recorder {
  std::vector<int> *log;
  int id;
  void operator()() const { log->push_back(id); }
};

TEST(Timing, MeasureMakesAtLeastMinRepsAndAtMostMaxReps) {
  std::vector<int> log;
  Policy policy;
  policy.targetSeconds = 0;
  policy.minReps = 3;
  EXPECT_EQ(measure(policy, Recorder{&log, 0}).reps(), 3);
  policy.targetSeconds = 1e9;
  policy.maxReps = 7;
  EXPECT_EQ(measure(policy, Recorder{&log, 0}).reps(), 7);
}

TEST(Timing, AlternatingTakesTurnsWithAnUntimedCallFirst) {
  std::vector<int> log;
  Policy policy;
  policy.targetSeconds = 0;
  policy.minReps = kAlternatingRounds; // one timed call per turn
  std::vector<Stats> stats = measureAlternating(
      policy, /*warmEachTurn=*/true, Recorder{&log, 0}, Recorder{&log, 1});
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].reps(), kAlternatingRounds);
  EXPECT_EQ(stats[1].reps(), kAlternatingRounds);
  // Round 0: 0, 1 (both warmed up by the caller); later rounds: an untimed
  // and a timed call each, in turn.
  std::vector<int> want = {0, 1};
  for (int round = 1; round < kAlternatingRounds; ++round)
    want.insert(want.end(), {0, 0, 1, 1});
  EXPECT_EQ(log, want);
}

TEST(Timing, AlternatingLongCallsTakeTurnsWithoutUntimedCalls) {
  std::vector<int> log;
  Policy policy;
  policy.targetSeconds = 0;
  policy.minReps = kAlternatingRounds;
  std::vector<Stats> stats = measureAlternating(
      policy, /*warmEachTurn=*/false, Recorder{&log, 0}, Recorder{&log, 1});
  EXPECT_EQ(stats[0].reps(), kAlternatingRounds);
  EXPECT_EQ(stats[1].reps(), kAlternatingRounds);
  std::vector<int> want;
  for (int round = 0; round < kAlternatingRounds; ++round)
    want.insert(want.end(), {0, 1});
  EXPECT_EQ(log, want);
}

TEST(Timing, AlternatingKeepsTheTotalRepsOfThePolicy) {
  std::vector<int> log;
  Policy policy;
  policy.targetSeconds = 0;
  policy.minReps = 3; // rounded up to one per turn: 5 in all
  std::vector<Stats> stats =
      measureAlternating(policy, true, Recorder{&log, 0}, Recorder{&log, 1});
  EXPECT_GE(stats[0].reps(), policy.minReps);
  EXPECT_GE(stats[1].reps(), policy.minReps);
  policy.targetSeconds = 1e9;
  policy.maxReps = 10; // two per turn
  stats = measureAlternating(policy, true, Recorder{&log, 0});
  EXPECT_EQ(stats[0].reps(), 10);
}

TEST(Timing, StatsSummarizeMedianMinMax) {
  Stats stats;
  stats.seconds = {3, 1, 2, 10};
  stats.summarize();
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
  EXPECT_DOUBLE_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.max, 10);
}

} // namespace
