# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "rnnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".yaml", ".test", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rnn_obj_root, "tests")
# Inputs/ and fixtures/ hold data; unit/ is its own (GoogleTest) suite,
# found through its lit.site.cfg.py in the build tree.
config.excludes = ["Inputs", "fixtures", "CMakeLists.txt", "lit.cfg.py"]
# `lit -Dlong=0` leaves out the long differential suites, which run the
# compiler paths the rest of the suite covers on many more sizes and
# options: the Flax conformance suite (tests/Flax) and the equivalence
# matrix (tests/unit/Equivalence, excluded in tests/unit/lit.cfg.py). It is
# the developers' inner loop and scripts/test's sanitizer pass
# (docs/Reliability.md has the figures).
if lit_config.params.get("long", "1") == "0":
    config.excludes.append("Flax")
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%rnn_src_root", config.rnn_src_root))
config.substitutions.append(("%rnn_lib_dir", config.rnn_lib_dir))
# The build tree itself, for scripts that take one (examples/run_example.sh).
config.substitutions.append(("%rnn_build_dir", config.rnn_obj_root))
config.substitutions.append(("%python", config.python_executable))
# Strict C99: the contract for generated C and the runtime.
# In a sanitizer build (scripts/test's second pass) the C the tests compile,
# harnesses and generated C alike, is instrumented too.
cc = config.c_compiler
if config.sanitizer_flags:
    cc += " " + config.sanitizer_flags
    config.available_features.add("sanitizers")
    # libMLIR is not instrumented: its allocators' own poisoning must not fire.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
config.substitutions.append(
    ("%cc_strict", cc + " -std=c99 -Wall -Wextra -Werror -pedantic"))

# What the host's CPU runs, not only compiles: AVX-512 (oneDNN's bf16
# RNNs), AVX512_BF16 (vdpbf16ps, bf16
# compute's dot kernels), AVX-512 VNNI (vpdpbusd) and an x86 int8 dot
# product for dynamic int8 activations (vpdpbusd, or AVX2's vpmaddwd). On an x86 host (AVX2) without AMX, `rnnc run
# --cpu=sapphirerapids` must be refused rather than crash.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = cpuinfo.read()
    if " avx512f" in flags:
        config.available_features.add("host-avx512")
    if " avx512_bf16" in flags:
        config.available_features.add("avx512bf16")
    if " avx512_vnni" in flags:
        config.available_features.add("host-vnni")
    if " avx512_vnni" in flags or " avx2" in flags:
        config.available_features.add("host-int8-dot")
    if " avx2" in flags and " amx_tile" not in flags:
        config.available_features.add("x86-no-amx")
except OSError:
    pass
# ThreadSanitizer cannot be combined with ASan: the TSan test's own compiler.
config.substitutions.append(("%cc_tsan", config.c_compiler + " -fsanitize=thread"))
config.substitutions.append(("%cc", cc))
# What a sanitizer adds to an object's symbols (__asan_*, ___asan_globals_
# registered, __start_asan_globals, ...), for the nm checks to ignore: a grep -e pattern for a
# name at the start of a line (--format=just-symbols) or after a space
# (nm's "address type name" lines).
config.substitutions.append(("%{sanitizer_symbols}", "'\\(^\\| \\)_*_\\(\\(start\\|stop\\)_\\)\\?\\(asan\\|ubsan\\|sanitizer\\|tsan\\)'"))
# MLIR's runtime support libraries for `mlir-runner -shared-libs=...`
# (printMemrefF32 and friends), next to the LLVM tools: <llvm>/bin -> <llvm>/lib.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
for lib in ["mlir_runner_utils", "mlir_c_runner_utils"]:
    config.substitutions.append(
        ("%" + lib, os.path.join(llvm_lib_dir, "lib" + lib + ".so")))

tool_dirs = [config.rnn_tools_dir, config.llvm_tools_dir]
tools = ["rnn-opt", "rnnc", "mlir-translate", "mlir-runner", "llc", "opt", "llvm-nm", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
