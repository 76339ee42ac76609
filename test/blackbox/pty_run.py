#!/usr/bin/env python3
"""pty_run.py PROMPT1 ANSWER1 [PROMPT2 ANSWER2 ...] -- CMD...: runs CMD on a
new terminal (stdin, stdout and stderr a pty); each time its output shows
the next PROMPT, types that ANSWER and Enter (by state: it waits for the
prompt, a minute at most; then CMD is killed). Prints everything the terminal showed (what an
operator would see, echoes included), exits with CMD's status."""
import os, pty, select, sys, time

args = sys.argv[1:]
cut = args.index('--')
pairs, cmd = args[:cut], args[cut + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
seen = b''
deadline = time.monotonic() + 60


def read_some():
    global seen
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            data = os.read(fd, 4096)
        except OSError:
            return False
        if not data:
            return False
        seen += data
    return True


for i in range(0, len(pairs), 2):
    prompt, answer = pairs[i].encode(), pairs[i + 1].encode()
    while seen.count(prompt) < sum(1 for p in pairs[0:i + 1:2] if p == pairs[i]):
        if time.monotonic() > deadline or not read_some():
            break
    try:
        os.write(fd, answer + b'\r')
    except OSError:   # CMD has ended
        break
while read_some() and time.monotonic() < deadline:
    pass
if time.monotonic() >= deadline:   # a prompt never came: no test hangs on it
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors='replace'))
sys.exit(os.waitstatus_to_exitcode(status))
