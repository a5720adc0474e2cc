"""Prints C compiler options defining each NAME=FILE argument's SHA-256 as a
string macro, for a response file: '-DNAME="<hex>"'. With --corrupt, the
first hex digit of each is replaced by 'x' (a test that must then fail)."""
import hashlib
import sys

args = sys.argv[1:]
corrupt = "--corrupt" in args
for arg in args:
    if arg == "--corrupt":
        continue
    name, path = arg.split("=", 1)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if corrupt:
        digest = "x" + digest[1:]
    print(f"'-D{name}=\"{digest}\"'")
