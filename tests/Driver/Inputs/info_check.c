/* Checks <name>_info() against the header's macros and against the SHA-256
 * of the spec and weights files computed by the test (-DSPEC_SHA=...,
 * -DWEIGHTS_SHA=...). Build: -DMODEL=<name> -DPREFIX=<NAME>
 * -DMODEL_HEADER='"<name>.h"'; the model has one batch dim and an LSTM
 * layer `rnn`. Plain C99. Prints one line per check and "info: ok" when
 * every field matches. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define M(name) CAT(PREFIX, name)
#define INFO CAT(MODEL, _info)
#define INFO_T CAT(MODEL, _info_t)

static int failures = 0;

static void text(const char *field, const char *got, const char *want) {
  int ok = strcmp(got, want) == 0;
  printf("%s: %s%s\n", field, got, ok ? "" : " MISMATCH");
  failures += !ok;
}

static void number(const char *field, int64_t got, int64_t want) {
  int ok = got == want;
  printf("%s: %lld%s\n", field, (long long)got, ok ? "" : " MISMATCH");
  failures += !ok;
}

int main(void) {
  const INFO_T *info = INFO();
  /* The same pointer every call: static data. */
  if (INFO() != info)
    ++failures;
  text("rnnc_version", info->rnnc_version, M(_RNNC_VERSION));
  text("git_revision", info->git_revision, M(_RNNC_GIT_REVISION));
  text("spec_sha256", info->spec_sha256, M(_SPEC_SHA256));
  text("spec_sha256 (test)", info->spec_sha256, SPEC_SHA);
  text("weights_sha256", info->weights_sha256, M(_WEIGHTS_SHA256));
  text("weights_sha256 (test)", info->weights_sha256, WEIGHTS_SHA);
  number("spec_format_version", info->spec_format_version,
         M(_SPEC_FORMAT_VERSION));
  number("num_batch_dims", info->num_batch_dims, M(_NUM_BATCH_DIMS));
  number("batch_dim_0", info->batch_dim_0, M(_BATCH_DIM_0));
  number("runtime_batch_dim_0", info->runtime_batch_dim_0,
         M(_RUNTIME_BATCH_DIM_0));
  number("time", info->time, M(_TIME));
  number("runtime_time", info->runtime_time, M(_RUNTIME_TIME));
  number("time_major", info->time_major, M(_TIME_MAJOR));
  number("input_features", info->input_features, M(_INPUT_FEATURES));
  number("output_features", info->output_features, M(_OUTPUT_FEATURES));
  number("output_size", info->output_size, M(_OUTPUT_SIZE));
  number("workspace_size", info->workspace_size, M(_WORKSPACE_SIZE));
  number("workspace_alignment", info->workspace_alignment,
         M(_WORKSPACE_ALIGNMENT));
  number("carry_rnn_c_size", info->carry_rnn_c_size, M(_CARRY_RNN_C_SIZE));
  number("carry_rnn_h_size", info->carry_rnn_h_size, M(_CARRY_RNN_H_SIZE));
  printf("info: %s\n", failures ? "MISMATCH" : "ok");
  return failures != 0;
}
