#!/usr/bin/env python3
"""Runs a command under a time and memory bound, for the resource tests.

  bounded.py SECONDS MEGABYTES [--expect-failure] -- COMMAND...

Fails (exit 1, saying which bound) when COMMAND runs longer than SECONDS
(it is killed) or its peak resident memory exceeds MEGABYTES; otherwise
exits 0 if COMMAND's exit status is what was expected (0, or nonzero with
--expect-failure). COMMAND's output passes through. The peak is the
child's ru_maxrss, so the bound holds under sanitizers too (their address
space reservations are not resident).
"""
import os
import resource
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    expect_failure = "--expect-failure" in options
    options = [o for o in options if o != "--expect-failure"]
    seconds, megabytes = float(options[0]), float(options[1])
    start = time.monotonic()
    try:
        proc = subprocess.run(command, timeout=seconds)
    except subprocess.TimeoutExpired:
        print(f"bounded.py: over {seconds:g} s, killed: {' '.join(command)}",
              file=sys.stderr)
        return 1
    elapsed = time.monotonic() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"bounded.py: {elapsed:.2f} s, {peak_mb:.0f} MB peak",
          file=sys.stderr)
    if peak_mb > megabytes:
        print(f"bounded.py: peak memory {peak_mb:.0f} MB over {megabytes:g} MB",
              file=sys.stderr)
        return 1
    if (proc.returncode != 0) != expect_failure:
        print(f"bounded.py: exit status {proc.returncode}", file=sys.stderr)
        return 1
    # A crash is never an expected failure.
    if proc.returncode < 0:
        print(f"bounded.py: killed by signal {-proc.returncode}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
