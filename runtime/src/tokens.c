//===- tokens.c - Token id checks -----------------------------------------===//
//
// A model that starts with an Embed reads its table at each id; an id out of
// range would read outside the table, so the entry point checks all of them
// before it writes anything.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

rnnrt_status_t rnnrt_check_token_ids(const int32_t *ids, int64_t count,
                                     int32_t num_embeddings) {
  int64_t i;
  if (count < 0 || num_embeddings < 1 || (!ids && count > 0))
    return RNNRT_ERROR_ARGUMENT;
  for (i = 0; i < count; ++i)
    if (ids[i] < 0 || ids[i] >= num_embeddings)
      return RNNRT_ERROR_TOKEN;
  return RNNRT_OK;
}
