/*===- pool.c - A pthread pool usable as the parallel-for hook ------------===*
 *
 * A fixed set of worker threads that run the tasks of one parallel-for at a
 * time, with the calling thread taking tasks too. The pool is made for a
 * barrier per time step (a batch-1 recurrence split over cores, tens of
 * microseconds of work between barriers), so waiting spins first: a worker
 * that finished a job spins on the job counter for a while before it
 * blocks on a condition variable, and so does the caller waiting for the
 * workers. A barrier between busy steps then costs a few cache-line
 * transfers (about a microsecond), not a futex round trip; an idle pool
 * sleeps.
 *
 * Protocol. The caller closes the last job's claims (`claims` = the new
 * generation << 32 | no index), publishes the job (task, task_ctx,
 * num_tasks, done = 0), opens its claims (`claims` = generation << 32 |
 * next task index 0) and then bumps `generation`, which wakes the workers. Anyone, the caller
 * included, claims a task by a compare-and-swap of `claims` that still
 * names the job's generation, runs it and counts it in `done`; the caller
 * claims tasks too, then waits for `done == num_tasks`, not for the
 * workers. So a worker that is not running (its core busy with another
 * process) costs nothing: the caller takes its tasks, and the worker, once
 * it runs, finds the job's claims gone (another generation, or no index
 * left) and claims nothing. A claim is made only while its job is
 * unfinished, so every count in `done` is the current job's, and when the
 * call returns no worker will touch the job again: the next job may reuse
 * the fields. Sleeping on either side is announced in a counter before the
 * final check of the condition, under the mutex the waker takes, so no
 * wake-up is lost (the counters and the conditions are sequentially
 * consistent atomics).
 *
 * A worker can still claim a task and then lose its core to another
 * process, and the caller then waits out the scheduler's time slice
 * (milliseconds, against tens of microseconds of work). So the caller
 * times each job: when it waited for the others longer than running their
 * tasks itself would have taken (at its own pace), the job was a loss, and
 * the caller runs the next jobs alone for a while: eight times the loss,
 * doubled for each loss in a row (up to RNNRT_POOL_MAX_SERIAL_NS), then it
 * tries the workers again. On a quiet machine no job is a loss; on a busy
 * one the pool costs little more than running serially.
 *
 * The caller gives the pool its memory (rnnrt_pool_size), so librnnrt
 * still refers to no allocator; the threads' stacks are the system's.
 * Only built where pthreads exist (RNNRT_NO_THREADS leaves it out).
 *
 *===----------------------------------------------------------------------===*/

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "rnnrt/rnnrt.h"

#ifndef RNNRT_NO_THREADS

#include <pthread.h>
#include <stddef.h>
#include <time.h>

/* Spin iterations before blocking: a few hundred microseconds, longer than
 * the gap between two steps of a running model, far shorter than the gap
 * between two calls of an idle one. */
#define RNNRT_POOL_SPINS (1 << 15)

/* The longest the caller runs jobs alone after losses, in nanoseconds. */
#define RNNRT_POOL_MAX_SERIAL_NS 200000000

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define CAS(p, expected, desired)                                            \
  __atomic_compare_exchange_n((p), (expected), (desired), 0,                 \
                              __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

struct rnnrt_pool {
  int32_t threads; /* workers + the caller */
  pthread_t *workers;
  pthread_mutex_t mutex;
  pthread_cond_t job_posted; /* workers sleep here */
  pthread_cond_t job_done;   /* the caller sleeps here */
  /* The job; written by the caller before its claims open. */
  rnnrt_task_fn task;
  void *task_ctx;
  int32_t num_tasks;
  uint64_t claims;  /* the job's generation << 32 | the next task index */
  int32_t done;     /* tasks of the current job finished */
  uint32_t generation;
  int32_t sleeping_workers;
  int32_t caller_sleeping;
  int32_t stop;
  /* The caller's own: after a lost job, jobs run serially until
   * serial_until (CLOCK_MONOTONIC ns); losses counts losses in a row. */
  int64_t serial_until;
  int32_t losses;
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Claims and runs tasks of job |generation| until its claims are gone;
 * returns how many it ran. */
static int32_t run_tasks(rnnrt_pool *pool, uint32_t generation) {
  int32_t ran = 0;
  for (;;) {
    uint64_t claim = LOAD(&pool->claims);
    int32_t num_tasks, index = (int32_t)(uint32_t)claim;
    if ((uint32_t)(claim >> 32) != generation)
      return ran;
    num_tasks = LOAD(&pool->num_tasks);
    if (index >= num_tasks)
      return ran;
    if (!CAS(&pool->claims, &claim, claim + 1))
      continue;
    /* The claim holds the job open: its fields are still this job's. */
    pool->task(pool->task_ctx, index);
    ++ran;
    if (ADD(&pool->done, 1) + 1 == num_tasks && LOAD(&pool->caller_sleeping)) {
      pthread_mutex_lock(&pool->mutex);
      pthread_cond_signal(&pool->job_done);
      pthread_mutex_unlock(&pool->mutex);
    }
  }
}

static void *worker_main(void *arg) {
  rnnrt_pool *pool = (rnnrt_pool *)arg;
  uint32_t seen = 0;
  for (;;) {
    int32_t spins;
    for (spins = 0; spins < RNNRT_POOL_SPINS && LOAD(&pool->generation) == seen;
         ++spins)
      cpu_relax();
    if (LOAD(&pool->generation) == seen) {
      pthread_mutex_lock(&pool->mutex);
      ADD(&pool->sleeping_workers, 1);
      while (LOAD(&pool->generation) == seen)
        pthread_cond_wait(&pool->job_posted, &pool->mutex);
      ADD(&pool->sleeping_workers, -1);
      pthread_mutex_unlock(&pool->mutex);
    }
    seen = LOAD(&pool->generation);
    if (LOAD(&pool->stop))
      return NULL;
    (void)run_tasks(pool, seen);
  }
}

/* Wakes the workers for generation |generation|, whose claims (if any)
 * are open. */
static void post(rnnrt_pool *pool, uint32_t generation) {
  STORE(&pool->generation, generation);
  if (LOAD(&pool->sleeping_workers) > 0) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_broadcast(&pool->job_posted);
    pthread_mutex_unlock(&pool->mutex);
  }
}

static void wait_for_tasks(rnnrt_pool *pool, int32_t num_tasks) {
  int32_t spins;
  for (spins = 0; spins < RNNRT_POOL_SPINS && LOAD(&pool->done) != num_tasks;
       ++spins)
    cpu_relax();
  if (LOAD(&pool->done) == num_tasks)
    return;
  pthread_mutex_lock(&pool->mutex);
  STORE(&pool->caller_sleeping, 1);
  while (LOAD(&pool->done) != num_tasks)
    pthread_cond_wait(&pool->job_done, &pool->mutex);
  STORE(&pool->caller_sleeping, 0);
  pthread_mutex_unlock(&pool->mutex);
}

/* The pool's struct, then its workers' handles, from a 64-byte boundary
 * (the fields the threads share sit on their own cache lines, not on the
 * caller's neighbouring data). */
size_t rnnrt_pool_size(int32_t threads) {
  if (threads < 1)
    return 0;
  return 63 + sizeof(rnnrt_pool) + (size_t)(threads - 1) * sizeof(pthread_t);
}

rnnrt_pool *rnnrt_pool_init(void *memory, int32_t threads) {
  rnnrt_pool *pool;
  int32_t i;
  if (!memory || threads < 1)
    return NULL;
  pool = (rnnrt_pool *)(void *)((char *)memory +
                                (64 - (uintptr_t)memory % 64) % 64);
  memset(pool, 0, sizeof *pool);
  pool->threads = threads;
  pool->workers = (pthread_t *)(void *)(pool + 1);
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_cond_init(&pool->job_posted, NULL);
  pthread_cond_init(&pool->job_done, NULL);
  for (i = 0; i < threads - 1; ++i) {
    if (pthread_create(&pool->workers[i], NULL, worker_main, pool) != 0) {
      /* Keep the workers that started: the pool just has fewer threads. */
      pool->threads = i + 1;
      break;
    }
  }
  return pool;
}

int32_t rnnrt_pool_threads(const rnnrt_pool *pool) {
  return pool ? pool->threads : 0;
}

void rnnrt_pool_destroy(rnnrt_pool *pool) {
  int32_t i;
  if (!pool)
    return;
  if (pool->threads > 1) {
    STORE(&pool->stop, 1);
    post(pool, LOAD(&pool->generation) + 1);
    for (i = 0; i < pool->threads - 1; ++i)
      pthread_join(pool->workers[i], NULL);
  }
  pthread_cond_destroy(&pool->job_done);
  pthread_cond_destroy(&pool->job_posted);
  pthread_mutex_destroy(&pool->mutex);
}

void rnnrt_pool_parallel_for(void *ctx, int32_t num_tasks, rnnrt_task_fn task,
                             void *task_ctx) {
  rnnrt_pool *pool = (rnnrt_pool *)ctx;
  uint32_t generation;
  int64_t start, own_end, end, serial_estimate;
  int32_t ran;
  /* Nothing to share: no wake-up, no barrier. */
  if (!pool || pool->threads == 1 || num_tasks <= 1) {
    rnnrt_serial_for(NULL, num_tasks, task, task_ctx);
    return;
  }
  start = now_ns();
  /* Backing off after lost jobs. */
  if (start < pool->serial_until) {
    rnnrt_serial_for(NULL, num_tasks, task, task_ctx);
    return;
  }
  generation = LOAD(&pool->generation) + 1;
  /* Closed first: a worker late on the last job, holding its exhausted
   * claim, must not find that claim valid under this job's num_tasks. */
  STORE(&pool->claims, (uint64_t)generation << 32 | 0x7FFFFFFFu);
  pool->task = task;
  pool->task_ctx = task_ctx;
  STORE(&pool->num_tasks, num_tasks);
  STORE(&pool->done, 0);
  STORE(&pool->claims, (uint64_t)generation << 32);
  post(pool, generation);
  ran = run_tasks(pool, generation);
  own_end = now_ns();
  wait_for_tasks(pool, num_tasks);
  end = now_ns();
  if (ran == 0) /* the workers took every task: nothing to compare */
    return;
  serial_estimate = (own_end - start) / ran * num_tasks;
  if (end - start <= serial_estimate) {
    pool->losses = 0;
    return;
  }
  {
    int64_t loss = end - start - serial_estimate;
    int64_t backoff = loss * 8 << (pool->losses < 10 ? pool->losses : 10);
    if (backoff > RNNRT_POOL_MAX_SERIAL_NS)
      backoff = RNNRT_POOL_MAX_SERIAL_NS;
    ++pool->losses;
    pool->serial_until = end + backoff;
  }
}

#else

/* ISO C forbids an empty translation unit. */
typedef int rnnrt_pool_unavailable;

#endif /* RNNRT_NO_THREADS */
