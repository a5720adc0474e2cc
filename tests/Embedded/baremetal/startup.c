/* startup.c: the least a Cortex-M needs to run a C99 program under
 * qemu-system-arm (mps2-an385: Cortex-M3, mps2-an386: Cortex-M4,
 * mps3-an547: Cortex-M55), with newlib's semihosting (librdimon) for
 * printf and exit.
 *
 * The vector table gives the initial stack pointer and the reset handler;
 * the reset handler copies .data from flash, zeroes .bss, turns the FPU on
 * when the program was built for one, opens semihosting's stdio, and exits
 * with main's status. Every other exception stops in a loop (qemu's
 * -no-reboot and the test's timeout end it). The symbols come from
 * the board's linker script (sections.ld). */
#include <stdint.h>
#include <stdlib.h>

extern int main(void);
extern void initialise_monitor_handles(void);

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __stack_top__[];

void Reset_Handler(void);
void Fault_Handler(void);
void _init(void);
void _fini(void);

/* newlib's exit runs the .fini_array through _fini (crti.o's, which
 * -nostartfiles leaves out); C has no destructors to run. */
void _init(void) {}
void _fini(void) {}

void Fault_Handler(void) {
  for (;;) {
  }
}

void Reset_Handler(void) {
  uint32_t *from = __data_load__, *to = __data_start__;
  while (to < __data_end__)
    *to++ = *from++;
  for (to = __bss_start__; to < __bss_end__;)
    *to++ = 0;
#if defined(__ARM_FP)
  /* CPACR: full access to coprocessors 10 and 11, the FPU. */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
#endif
  initialise_monitor_handles();
  exit(main());
}

/* Initial SP, then reset, NMI, HardFault, MemManage, BusFault, UsageFault. */
__attribute__((section(".vectors"), used)) static void *const vectors[16] = {
    __stack_top__,         (void *)Reset_Handler, (void *)Fault_Handler,
    (void *)Fault_Handler, (void *)Fault_Handler, (void *)Fault_Handler,
    (void *)Fault_Handler,
};
