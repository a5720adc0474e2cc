# -*- Python -*-
# GoogleTest binaries (every executable named *Tests below tests/unit).
import os

import lit.formats

config.name = "rnnc-unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.rnn_obj_root, "tests", "unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# `lit -Dlong=0` (tests/lit.cfg.py): without the equivalence matrix.
if lit_config.params.get("long", "1") == "0":
    config.excludes = ["Equivalence"]
# Tests read fixtures relative to the source tree.
config.environment["RNN_SRC_ROOT"] = config.rnn_src_root
# A sanitizer build: libMLIR is not instrumented, and its allocators'
# own poisoning must not fire.
if config.sanitizer_flags:
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
