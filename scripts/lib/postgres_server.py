#!/usr/bin/env python3
"""A throwaway PostgreSQL server for the tests and benchmarks.

    python3 scripts/lib/postgres_server.py [--durable]

Creates a cluster in a new temporary folder (initdb), starts it with
pg_ctl on a Unix socket in that folder (no TCP port), prints the socket
folder on its first line, then creates each database named on a line of
standard input ("createdb NAME", answered "ok NAME" or "error ..."), and
restarts the server on "restart" (an immediate shutdown, as a crash would
stop it, then a start: answered "ok restart" once it accepts connections),
stops it on "stop" (a fast shutdown: sessions ended, the data kept; "ok
stop" once it is down) and starts it again on "start" ("ok start" once it
accepts connections): an outage as long as the test wants. Each of the two
answers at once when the server is already as asked.
When standard input closes (its user ended, even killed), the server is
stopped by its pid and the folder removed: no server outlives its user.

Besides the superuser postgres (no password), two roles for the tests of
failures: feedmerge_password, whose password is "right" (a wrong one is
refused), and feedmerge_reader, who may connect but create nothing.

As root, the cluster belongs to the postgres user (initdb refuses root).
Without --durable the server runs with fsync=off: a test's data need not
survive a power cut, and each commit then costs no disk flush. The
benchmarks pass --durable: what they measure is what users run.
"""
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile


def binaries():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if not found:
        sys.exit("postgres_server: no PostgreSQL server installed (scripts/setup --test installs it)")
    return os.path.dirname(found[-1])


def main():
    durable = "--durable" in sys.argv[1:]
    bin_dir = binaries()
    folder = tempfile.mkdtemp(prefix="feedmerge-postgres-")
    data = os.path.join(folder, "data")
    run_as = []
    if os.getuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    os.chmod(folder, 0o755)

    def run(*command, **kwargs):
        return subprocess.run(run_as + list(command), check=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, **kwargs)

    pid = None
    try:
        run(os.path.join(bin_dir, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync")
        hba = os.path.join(data, "pg_hba.conf")
        with open(hba) as f:
            rules = f.read()
        with open(hba, "w") as f:
            f.write("local all feedmerge_password scram-sha-256\n" + rules)
        settings = [f"-k {folder}", "-c listen_addresses=''", "-c max_connections=200"]
        if not durable:
            settings += ["-c fsync=off", "-c full_page_writes=off"]
        run(os.path.join(bin_dir, "pg_ctl"), "-D", data, "-l", os.path.join(folder, "log"), "-w",
            "-o", " ".join(settings), "start")
        with open(os.path.join(data, "postmaster.pid")) as f:
            pid = int(f.readline())
        subprocess.run([os.path.join(bin_dir, "psql"), "-X", "-q", "-h", folder, "-U", "postgres", "-d", "postgres",
                        "-c", "CREATE ROLE feedmerge_password LOGIN PASSWORD 'right'",
                        "-c", "CREATE ROLE feedmerge_reader LOGIN"], check=True, capture_output=True)
        print(folder, flush=True)
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] == "createdb":
                result = subprocess.run(
                    [os.path.join(bin_dir, "createdb"), "-h", folder, "-U", "postgres", words[1]],
                    capture_output=True, text=True)
                answer = f"ok {words[1]}" if result.returncode == 0 else "error " + result.stderr.strip()
                print(answer.replace("\n", " "), flush=True)
            elif words == ["stop"]:
                if pid is not None:
                    run(os.path.join(bin_dir, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop")
                    pid = None
                print("ok stop", flush=True)
            elif words == ["start"]:
                if pid is None:
                    run(os.path.join(bin_dir, "pg_ctl"), "-D", data, "-l", os.path.join(folder, "log"), "-w",
                        "-o", " ".join(settings), "start")
                    with open(os.path.join(data, "postmaster.pid")) as f:
                        pid = int(f.readline())
                print("ok start", flush=True)
            elif words == ["restart"]:
                run(os.path.join(bin_dir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
                run(os.path.join(bin_dir, "pg_ctl"), "-D", data, "-l", os.path.join(folder, "log"), "-w",
                    "-o", " ".join(settings), "start")
                with open(os.path.join(data, "postmaster.pid")) as f:
                    pid = int(f.readline())
                print("ok restart", flush=True)
    except subprocess.CalledProcessError as error:
        sys.stderr.write(f"postgres_server: {' '.join(error.cmd)} failed: {error.stderr.decode()}\n")
        print("", flush=True)
    finally:
        if pid is not None:
            try:
                os.kill(pid, signal.SIGQUIT)  # immediate shutdown: the data is thrown away
                for _ in range(200):
                    os.kill(pid, 0)
                    subprocess.run(["sleep", "0.025"])
            except ProcessLookupError:
                pass
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopped by its standard input closing
    main()
