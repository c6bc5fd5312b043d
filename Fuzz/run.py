#!/usr/bin/env python3
"""Runs one libFuzzer target for a while and reports what it did.

    python3 Fuzz/run.py BINARY --corpus DIR --seeds DIR --dict FILE --seconds N
                        --findings DIR --log FILE [--jobs N] [--max-len N]

The corpus folder is kept between runs (libFuzzer adds what it finds to it);
the seeds are read, never written. Prints one line: executions, exec/s, the
coverage (libFuzzer's `cov`, edges reached, and `ft`, features) when the
seeds were loaded and at the end, the corpus then and now, and the findings
(crashes, timeouts, out-of-memory, leaks) written into the findings folder.
Each new finding is also printed whole (base64, up to 64 KB) with the
log's first error line, so a CI log alone is enough to reproduce it:
`base64 -d > FILE`, then `.build/fuzz/debug/fuzz-TARGET FILE`.
Exits 1 when there is a finding.
"""
import argparse
import base64
import os
import re
import subprocess
import sys
import time

STATS = re.compile(r"#(\d+):?\s+\w*\s*cov: (\d+) ft: (\d+) corp: (\d+)(?:/\S+)?(?:.*?exec/s: (\d+))?")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--seeds", required=True)
    parser.add_argument("--dict", required=True)
    parser.add_argument("--seconds", type=int, required=True)
    parser.add_argument("--findings", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-len", type=int, default=65536)
    args = parser.parse_args()
    name = os.path.basename(args.binary)
    for folder in (args.corpus, args.findings):
        os.makedirs(folder, exist_ok=True)
    before = set(os.listdir(args.findings))
    corpus_before = len(os.listdir(args.corpus))
    command = [
        args.binary, args.corpus, args.seeds, f"-dict={args.dict}", f"-max_total_time={args.seconds}",
        f"-artifact_prefix={args.findings}/", f"-max_len={args.max_len}", "-timeout=25", "-rss_limit_mb=4096",
        "-print_final_stats=1",
    ]
    if args.jobs > 1:
        # Fork mode goes on past a finding (each written to the findings folder), so a long run
        # reports all it found in its time, not only the first.
        command += [f"-fork={args.jobs}", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    environment = dict(os.environ)
    environment["SWIFT_BACKTRACE"] = "enable=no"  # libFuzzer's own handler writes the crashing input
    environment.setdefault("ASAN_OPTIONS", "detect_leaks=1:allocator_may_return_null=1:handle_abort=1")
    started = time.monotonic()
    first = last = None
    # Coverage over time, for runs of minutes: the first stats line past each mark.
    marks = [m for m in (60, 300, 600, 1200, 1800, 3600) if m < args.seconds]
    timeline = []
    with open(args.log, "w") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment)
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace")
            log.write(line)
            log.flush()
            match = STATS.search(line)
            if match and ("INITED" in line or first is None and args.jobs > 1 and ": cov:" in line):
                first = match
            if match:
                last = match
                if marks and time.monotonic() - started >= marks[0]:
                    timeline.append(f"{marks.pop(0) // 60} min cov {match.group(2)} ft {match.group(3)}")
        status = process.wait()
    elapsed = time.monotonic() - started
    found = sorted(set(os.listdir(args.findings)) - before)
    corpus_after = len(os.listdir(args.corpus))
    executions = int(last.group(1)) if last else 0
    rate = executions / max(elapsed, 1e-9)

    def coverage(match):
        return f"cov {match.group(2)} ft {match.group(3)}" if match else "?"

    print(
        f"{name}: {executions:,} executions in {elapsed:.0f} s ({rate:,.0f}/s), "
        f"coverage {coverage(first)} at the seeds -> {coverage(last)}, "
        f"corpus {corpus_before} -> {corpus_after} (+{len(os.listdir(args.seeds))} seeds), "
        f"findings: {len(found)}" + (f" ({', '.join(found)})" if found else "")
        + f"; log {args.log}"
    )
    if timeline:
        print(f"{name}: coverage over time: " + ", ".join(timeline))
    for finding in found:
        describe(os.path.join(args.findings, finding), args.log)
    if found or (status != 0 and not found):
        if status != 0 and not found:
            print(f"{name}: libFuzzer exited {status} without a finding file; see {args.log}")
        sys.exit(1)


ERROR = re.compile(r"Fatal error: .*|ERROR: (?:AddressSanitizer|LeakSanitizer|libFuzzer): .*|==\d+== ERROR: .*")


def describe(path, log_path, limit=65536):
    """Prints a finding's input (base64) and the first error line of the log."""
    with open(path, "rb") as finding:
        data = finding.read()
    with open(log_path, encoding="utf-8", errors="replace") as log:
        error = next((match.group(0) for match in map(ERROR.search, log) if match), "(no error line in the log)")
    print(f"finding {os.path.basename(path)}: {len(data)} bytes; {error[:300]}")
    shown = data[:limit]
    print(f"finding {os.path.basename(path)} in base64" + (f" (first {limit} bytes)" if len(data) > limit else "") + ":")
    encoded = base64.b64encode(shown).decode("ascii")
    for start in range(0, len(encoded), 76):
        print(encoded[start:start + 76])


if __name__ == "__main__":
    main()
