#!/usr/bin/env python3
"""Which of the given strings a running process still holds in its memory.

usage: memscan.py PID NAME=VALUE...   (or the pairs one a line on stdin: -)

Reads every writable private mapping of PID (heap, anonymous memory, thread
stacks, the data of its libraries) through /proc/PID/mem and prints the name
of each value found there, one a line; exit 0 either way, 2 when the memory
cannot be read. A process that wipes what it frees holds a secret only while
it uses it: a test stops using them, then asks.
"""
import sys

CHUNK = 16 << 20
REGION_MAX = 1 << 30   # no heap of a test's server is near this


def regions(pid):
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            span, perms = fields[0], fields[1]
            if not perms.startswith("rw") or perms[3] != "p":
                continue
            if len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]"):
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            yield lo, hi


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: memscan.py PID NAME=VALUE...")
    pid = int(sys.argv[1])
    pairs = sys.argv[2:]
    if pairs == ["-"]:
        pairs = [l.rstrip("\n") for l in sys.stdin if "=" in l]
    wanted = {}
    for p in pairs:
        name, value = p.split("=", 1)
        if value:
            wanted[name] = value.encode()
    found = set()
    try:
        mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
    except OSError as e:
        print(f"memscan: {e}", file=sys.stderr)
        sys.exit(2)
    read = 0
    longest = max((len(v) for v in wanted.values()), default=1)
    with mem:
        for lo, hi in regions(pid):
            if hi - lo > REGION_MAX:
                continue   # a sanitizer's shadow memory: terabytes reserved, never data
            pos, tail = lo, b""
            while pos < hi:
                try:
                    mem.seek(pos)
                    data = tail + mem.read(min(CHUNK, hi - pos))
                except OSError:
                    break   # a guard page, or a mapping gone meanwhile
                read += len(data) - len(tail)
                for name, value in wanted.items():
                    if name not in found and value in data:
                        found.add(name)
                tail = data[-(longest - 1):] if longest > 1 else b""
                pos += CHUNK
    if read == 0:
        print("memscan: no memory could be read", file=sys.stderr)
        sys.exit(2)
    for name in sorted(found):
        print(name)


if __name__ == "__main__":
    main()
