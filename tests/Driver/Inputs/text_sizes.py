"""Prints the .text size of each object file given, one per line, as
`<size> <path>`, using llvm-size (from PATH, as lit sets it)."""

import subprocess
import sys

for path in sys.argv[1:]:
    out = subprocess.run(["llvm-size", "-A", path], check=True,
                         capture_output=True, text=True).stdout
    sizes = [int(line.split()[1]) for line in out.splitlines()
             if line.startswith(".text")]
    print(sum(sizes), path)
