#!/usr/bin/env python3
"""Runs a command, passing its output through, and stops it if it goes quiet.

    scripts/lib/stall_guard.py SECONDS COMMAND [ARGUMENT...]

The command runs in a session of its own, its standard output and
error merged into ours as they come. If it prints nothing for SECONDS, the
guard says so, then prints what it can find about where it hangs:

- the tests it started and never ended (Swift Testing's "◇ Test NAME
  started." lines without a "✔"/"✘" line for the same test);
- every process of the session, as a tree;
- each process's threads' stacks, by gdb (when it is installed);

then kills the whole session and exits 124, as timeout(1) does. Otherwise it
exits with the command's status (128 + N for a signal N).

A hung test suite would otherwise run until the CI's own time limit, with
nothing in its log to say where it stood.
"""

import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time

# A test's name: a function's (`name(label:)`) or a display name in quotes.
STARTED = re.compile(r'◇ Test (\S+\)|"[^"]*") started\.')
ENDED = re.compile(r'[✔✘➜] Test (\S+\)|"[^"]*") (?:with \d+ test cases? )?(?:passed|failed|skipped)')


def session_processes(session):
    """The pids of the processes in `session`, from /proc (a process group would miss the
    children started in groups of their own)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:
                pids.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return sorted(pids)


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "(gone)"


def kill_session(session):
    for pid in session_processes(session):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def report(seconds, session, open_tests):
    say = lambda text: print(f"stall_guard: {text}", flush=True)
    say(f"no output for {seconds} s: the command is taken to hang")
    if open_tests:
        say(f"{len(open_tests)} tests started and not ended:")
        for name in open_tests:
            say(f"  {name}")
    pids = session_processes(session)
    say("its processes:")
    subprocess.run(["ps", "-o", "pid,ppid,etime,time,stat,args", "--forest", "-s", str(session)])
    gdb = shutil.which("gdb")
    if gdb is None:
        say("gdb is not installed: no stacks")
        return
    for pid in pids:
        say(f"stacks of {pid}: {command_line(pid)[:200]}")
        try:
            subprocess.run(
                [gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 40"],
                stdin=subprocess.DEVNULL,
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            say(f"gdb took over 120 s on {pid}")


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print("usage: stall_guard.py SECONDS COMMAND [ARGUMENT...]", file=sys.stderr)
        return 2
    seconds = int(sys.argv[1])
    child = subprocess.Popen(
        sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    # Stopping the guard stops the command.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda n, _: (kill_session(child.pid), sys.exit(128 + n)))
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    started, ended = [], set()
    pending = b""
    last = time.monotonic()
    while True:
        if not selector.select(timeout=5):
            if time.monotonic() - last >= seconds:
                open_tests = [name for name in dict.fromkeys(started) if name not in ended]
                report(seconds, child.pid, open_tests)
                kill_session(child.pid)
                child.wait()
                return 124
            continue
        data = os.read(child.stdout.fileno(), 65536)
        if not data:
            break
        last = time.monotonic()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            text = line.decode(errors="replace")
            if match := STARTED.search(text):
                started.append(match.group(1))
            elif match := ENDED.search(text):
                ended.add(match.group(1))
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
