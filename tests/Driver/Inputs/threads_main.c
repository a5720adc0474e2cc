/* Two threads run one generated model (kws_bilstm) at once, each on its own
 * inputs, outputs and workspace, many times; built with ThreadSanitizer by
 * threads-tsan.test. Every output of every run must equal, bitwise, that of
 * the same inputs run alone first. */
#include "kws.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum {
  B = KWS_BATCH_DIM_0,
  X_SIZE = KWS_BATCH_DIM_0 * KWS_TIME * KWS_INPUT_FEATURES,
  Y_SIZE = KWS_BATCH_DIM_0 * KWS_TIME * KWS_OUTPUT_FEATURES,
  C_SIZE = KWS_CARRY_ENCODER_FORWARD_C_SIZE,
  OUT_SIZE = Y_SIZE + 4 * C_SIZE,
  RUNS = 20
};

typedef struct {
  float x[X_SIZE];
  int32_t lengths[B];
  float out[OUT_SIZE]; /* y, then the four carries */
  float expected[OUT_SIZE];
  KWS_WORKSPACE(workspace);
  int mismatches;
} Job;

static Job jobs[2];

static int32_t runOnce(Job *job) {
  float *y = job->out, *c = job->out + Y_SIZE;
  return kws_run(job->x, job->lengths, y, c, c + C_SIZE, c + 2 * C_SIZE,
                 c + 3 * C_SIZE, job->workspace);
}

static void *worker(void *arg) {
  Job *job = arg;
  int i;
  for (i = 0; i < RUNS; ++i) {
    memset(job->out, 0, sizeof job->out);
    if (runOnce(job) != KWS_OK ||
        memcmp(job->out, job->expected, sizeof job->out))
      ++job->mismatches;
  }
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  int j, i;
  for (j = 0; j < 2; ++j) {
    for (i = 0; i < X_SIZE; ++i)
      jobs[j].x[i] = (float)(((i + 17 * j) * 37) % 101) / 50.0f - 1.0f;
    for (i = 0; i < B; ++i)
      jobs[j].lengths[i] = (KWS_TIME - 7 * i - 3 * j) > 0
                               ? KWS_TIME - 7 * i - 3 * j : 0;
    if (runOnce(&jobs[j]) != KWS_OK) {
      printf("job %d: the serial run failed\n", j);
      return 1;
    }
    memcpy(jobs[j].expected, jobs[j].out, sizeof jobs[j].out);
  }
  if (!memcmp(jobs[0].expected, jobs[1].expected, sizeof jobs[0].expected)) {
    printf("the two jobs have the same outputs: the test cannot tell them apart\n");
    return 1;
  }
  for (j = 0; j < 2; ++j)
    pthread_create(&threads[j], NULL, worker, &jobs[j]);
  for (j = 0; j < 2; ++j)
    pthread_join(threads[j], NULL);
  printf("%d threads x %d runs: %d mismatches\n", 2, RUNS,
         jobs[0].mismatches + jobs[1].mismatches);
  return jobs[0].mismatches + jobs[1].mismatches;
}
