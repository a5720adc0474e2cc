# A CMake toolchain file for bare-metal Cortex-M4F with Debian's
# gcc-arm-none-eabi and newlib (hard float, FPv4-SP-D16): the runtime and
# the consumer test build with it (docs/Embedded.md).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No OS to run a test program on: check the compiler with a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT
  "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
