//===- ParallelTest.cpp - librnnrt's parallel-for hooks -------------------===//
//
// The serial hook and the pthread pool run every task exactly once and
// return only when all have returned (the barrier the generated code relies
// on), for any thread and task count, many times in a row (the spin and
// sleep paths both), the pool really runs tasks on another thread, and it
// stops using a worker that made a job slower than serial, for a while.

#include "rnnrt/rnnrt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

// A pool in memory of its own, freed with it.
struct Pool {
  std::vector<char> memory;
  rnnrt_pool *pool;
  explicit Pool(int threads)
      : memory(rnnrt_pool_size(threads)),
        pool(rnnrt_pool_init(memory.data(), threads)) {}
  ~Pool() { rnnrt_pool_destroy(pool); }
};

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int n) : hits(n) {}
};

void count(void *ctx, int32_t task) {
  static_cast<Counts *>(ctx)->hits[task].fetch_add(1);
}

void expectEachOnce(rnnrt_parallel_for fn, void *ctx, int tasks) {
  Counts counts(tasks);
  fn(ctx, tasks, count, &counts);
  // Read right after the return: the hook is the barrier.
  for (int i = 0; i < tasks; ++i)
    ASSERT_EQ(counts.hits[i].load(), 1) << "task " << i << " of " << tasks;
}

TEST(ParallelTest, SerialRunsTasksInOrder) {
  std::vector<int> order;
  auto record = [](void *ctx, int32_t task) {
    static_cast<std::vector<int> *>(ctx)->push_back(task);
  };
  rnnrt_serial_for(nullptr, 4, record, &order);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  rnnrt_serial_for(nullptr, 0, record, &order);
  EXPECT_EQ(order.size(), 4u);
}

TEST(ParallelTest, PoolRejectsNoThreads) {
  char memory[1024];
  EXPECT_EQ(rnnrt_pool_size(0), 0u);
  EXPECT_EQ(rnnrt_pool_init(memory, 0), nullptr);
  EXPECT_EQ(rnnrt_pool_init(memory, -3), nullptr);
  EXPECT_EQ(rnnrt_pool_init(nullptr, 2), nullptr);
  EXPECT_EQ(rnnrt_pool_threads(nullptr), 0);
  rnnrt_pool_destroy(nullptr);
}

TEST(ParallelTest, PoolRunsEachTaskOnce) {
  for (int threads : {1, 2, 3}) {
    Pool owner(threads);
    rnnrt_pool *pool = owner.pool;
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(rnnrt_pool_threads(pool), threads);
    for (int tasks : {0, 1, 2, 3, 7, 64})
      expectEachOnce(rnnrt_pool_parallel_for, pool, tasks);
  }
}

// A barrier per step, as a batch-1 recurrence uses it: many back-to-back
// jobs whose tasks read what the previous job wrote.
TEST(ParallelTest, PoolIsABarrierBetweenJobs) {
  Pool owner(2);
  rnnrt_pool *pool = owner.pool;
  ASSERT_NE(pool, nullptr);
  struct Step {
    int values[2][2] = {{0, 0}, {0, 0}};
    int step = 0;
    bool ok = true;
  } state;
  auto task = [](void *ctx, int32_t i) {
    auto *s = static_cast<Step *>(ctx);
    int from = s->step % 2, to = 1 - from;
    // Each task needs both halves of the previous step.
    if (s->values[from][0] != s->step || s->values[from][1] != s->step)
      s->ok = false;
    s->values[to][i] = s->step + 1;
  };
  for (int step = 0; step < 20000; ++step) {
    state.step = step;
    rnnrt_pool_parallel_for(pool, 2, task, &state);
  }
  EXPECT_TRUE(state.ok);
}

// After the spin window the workers sleep; a job then still wakes them.
TEST(ParallelTest, PoolWakesSleepingWorkers) {
  Pool owner(2);
  rnnrt_pool *pool = owner.pool;
  ASSERT_NE(pool, nullptr);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    expectEachOnce(rnnrt_pool_parallel_for, pool, 2);
  }
}

TEST(ParallelTest, PoolUsesAnotherThread) {
  Pool owner(2);
  rnnrt_pool *pool = owner.pool;
  ASSERT_NE(pool, nullptr);
  struct Seen {
    std::mutex mutex;
    std::set<std::thread::id> ids;
  } seen;
  auto task = [](void *ctx, int32_t) {
    auto *s = static_cast<Seen *>(ctx);
    // Long enough that one thread cannot take both tasks first.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(s->mutex);
    s->ids.insert(std::this_thread::get_id());
  };
  rnnrt_pool_parallel_for(pool, 2, task, &seen);
  EXPECT_EQ(seen.ids.size(), 2u);
}

// A worker that claims a task and then stalls (as when another process
// takes its core) makes the job slower than the caller alone would have
// been; the caller then runs the next jobs by itself, and uses the workers
// again once its back-off (at most 200 ms) has passed.
struct Stall {
  // How long the caller's task waits for the other task to start.
  std::chrono::milliseconds callerWaits;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> started{0};
  std::mutex mutex;
  std::set<std::thread::id> ids;
};

void stallOnWorkers(void *ctx, int32_t) {
  auto *s = static_cast<Stall *>(ctx);
  s->started.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    s->ids.insert(std::this_thread::get_id());
  }
  if (std::this_thread::get_id() != s->caller) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return;
  }
  // The caller's task waits for the other task to be claimed: on a worker
  // if the pool uses one, else (serially, after it) never.
  auto deadline = std::chrono::steady_clock::now() + s->callerWaits;
  while (s->started.load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
}

TEST(ParallelTest, PoolBacksOffAfterAStalledWorker) {
  Pool owner(2);
  rnnrt_pool *pool = owner.pool;
  ASSERT_NE(pool, nullptr);
  {
    Stall lost{std::chrono::seconds(2)};
    rnnrt_pool_parallel_for(pool, 2, stallOnWorkers, &lost);
    ASSERT_EQ(lost.ids.size(), 2u) << "the first job must reach the worker";
  }
  {
    Stall backingOff{std::chrono::milliseconds(50)};
    rnnrt_pool_parallel_for(pool, 2, stallOnWorkers, &backingOff);
    EXPECT_EQ(backingOff.ids.size(), 1u);
    EXPECT_EQ(backingOff.ids.count(backingOff.caller), 1u);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  {
    Stall again{std::chrono::seconds(2)};
    rnnrt_pool_parallel_for(pool, 2, stallOnWorkers, &again);
    EXPECT_EQ(again.ids.size(), 2u);
  }
}

} // namespace
