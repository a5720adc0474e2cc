//===- status.c - Versions, status codes and length checks ----------------===//
//
// The pieces of the rnnrt API shared by every kernel: the API version, the
// status strings and the sequence-length check.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

int32_t rnnrt_api_version(void) { return RNNRT_API_VERSION; }

const char *rnnrt_status_string(rnnrt_status_t status) {
  switch (status) {
  case RNNRT_OK:
    return "ok";
  case RNNRT_ERROR_SEQ_LENGTH:
    return "sequence length out of range";
  case RNNRT_ERROR_ARGUMENT:
    return "invalid argument";
  case RNNRT_ERROR_TOKEN:
    return "token id out of range";
  default:
    return "unknown status";
  }
}

rnnrt_status_t rnnrt_check_seq_lengths(const int32_t *seq_lengths,
                                       int64_t batch, int64_t time) {
  int64_t b;
  if (batch < 0 || time < 0)
    return RNNRT_ERROR_ARGUMENT;
  if (!seq_lengths)
    return RNNRT_OK;
  for (b = 0; b < batch; ++b)
    if (seq_lengths[b] < 0 || seq_lengths[b] > time)
      return RNNRT_ERROR_SEQ_LENGTH;
  return RNNRT_OK;
}
