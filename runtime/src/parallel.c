/*===- parallel.c - The serial parallel-for, available everywhere ---------===*
 *
 * rnnrt_serial_for is the parallel-for hook of a machine without threads
 * (bare metal) and what a NULL hook means: the tasks in order, on the
 * caller's thread. The pthread pool is in pool.c.
 *
 *===----------------------------------------------------------------------===*/

#include "rnnrt/rnnrt.h"

void rnnrt_serial_for(void *ctx, int32_t num_tasks, rnnrt_task_fn task,
                      void *task_ctx) {
  int32_t i;
  (void)ctx;
  for (i = 0; i < num_tasks; ++i)
    task(task_ctx, i);
}
