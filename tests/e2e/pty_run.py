#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal of a given size, as a person's terminal would run it, and writes what it
printed there (carriage returns removed) to a file. Used by the terminal tests of tests/e2e (issue 30).

Usage: pty_run.py COLUMNS OUTPUT COMMAND [ARG...]   (COLUMNS 0: the terminal says no width, as some do)
Exits with the command's exit status; kills it after 60 s (exit 124).
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def main():
    columns, output, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    data = bytearray()
    deadline = time.monotonic() + 60
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            sys.exit(124)
        ready, _, _ = select.select([fd], [], [], min(left, 1))
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the command ended and the terminal closed
            break
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    with open(output, "wb") as f:
        f.write(bytes(data).replace(b"\r\n", b"\n"))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
