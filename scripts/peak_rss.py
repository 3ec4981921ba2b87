#!/usr/bin/env python3
"""Runs a command and prints its wall time, CPU time and peak memory (Linux).

usage: scripts/peak_rss.py CMD [ARGS...]

Peak memory is sampled from /proc/PID/status every millisecond: VmHWM (the
kernel's own high-water mark of the resident set, file-backed pages
included: what `/usr/bin/time -v` reports as "Maximum resident set size"),
and the largest RssAnon (memory the process allocated) and RssFile (pages of
mapped files, the page cache's) seen. A mapped input's pages count in
RssFile and VmHWM while they are touched; RssAnon is what the process holds
of its own. The command's output goes to /dev/null.
"""
import os
import resource
import subprocess
import sys
import time


def fields(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "RssAnon", "RssFile"):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def main():
    cmd = sys.argv[1:]
    if not cmd:
        sys.exit(__doc__)
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}
    while p.poll() is None:
        for k, v in fields(p.pid).items():
            peak[k] = max(peak[k], v)
        time.sleep(0.001)
    wall = time.monotonic() - start
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"exit {p.returncode}  wall {wall:.2f} s  cpu {ru.ru_utime + ru.ru_stime:.2f} s  "
        f"VmHWM {peak['VmHWM'] / 1024:.1f} MB  RssAnon {peak['RssAnon'] / 1024:.1f} MB  "
        f"RssFile {peak['RssFile'] / 1024:.1f} MB  (maxrss {ru.ru_maxrss / 1024:.1f} MB)"
    )


if __name__ == "__main__":
    main()
