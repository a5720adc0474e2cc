"""Prints the code size of each object file given, one per line, as
`<instructions> <path>`: the instructions of its .text sections, without
the no-ops that align loops (their count, like the width of immediates,
varies with the constants in the code, not with how much code there is).
Uses llvm-objdump (from PATH, as lit sets it)."""

import re
import subprocess
import sys

INSTRUCTION = re.compile(r"^\s+[0-9a-f]+:\s+(\S+)")

for path in sys.argv[1:]:
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    count = 0
    for line in out.splitlines():
        match = INSTRUCTION.match(line)
        if match and not match.group(1).startswith(("nop", "data16")):
            count += 1
    print(count, path)
