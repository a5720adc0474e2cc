/* systick_clock.h: the examples' timing hook (EXAMPLE_NOW, see
 * examples/example_util.h) on a Cortex-M under qemu-system-arm's mps2
 * boards, for bench/mcu.sh, which force-includes it (-include).
 *
 * SysTick counts down from 2^24 - 1 at the processor clock (25 MHz on
 * mps2-an385/an386), free-running from the first call on; no interrupt
 * is used, so one timed interval must stay below 2^24 ticks (0.67 s: 671 M
 * instructions under -icount shift=0, where an instruction takes 1 ns). */
#ifndef SYSTICK_CLOCK_H
#define SYSTICK_CLOCK_H

#include <stdint.h>

#define SYSTICK_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYSTICK_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYSTICK_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYSTICK_HZ 25e6

static inline double systickNow(void) {
  static int started;
  if (!started) {
    SYSTICK_RVR = 0xFFFFFFu;
    SYSTICK_CVR = 0;
    SYSTICK_CSR = 5; /* enabled, processor clock, no interrupt */
    /* The write of CVR zeroed it; it holds the reload value from the next
     * tick on, where the count starts. */
    while ((SYSTICK_CVR & 0xFFFFFFu) == 0) {
    }
    started = 1;
  }
  return (double)(0xFFFFFFu - (SYSTICK_CVR & 0xFFFFFFu)) / SYSTICK_HZ;
}

#define EXAMPLE_NOW() systickNow()

#endif
