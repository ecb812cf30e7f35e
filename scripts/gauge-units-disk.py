#!/usr/bin/env python3
"""Runs every unit of a set as its own `rafle generate --unit` process, as a cluster's jobs run
them (a unit starts once the units it needs are finished, AT_ONCE at a time, ready units taken
in plan order, one thread each), and samples the data directory five times a second: the
largest size of its work directory (the values units keep for each other and the band files of
the units under way) and of the whole directory, against the tables at the end
(docs/cluster.md, Disk).

    scripts/gauge-units-disk.py RAFLE VARIANT PIECES AT_ONCE DIR [--no-set]

RAFLE is the binary, DIR the data directory (empty or missing). Each unit runs with
`--set PIECES`, as `rafle slurm submit` runs it, unless --no-set is given (the units then keep
every value until a whole run removes them)."""

import json
import os
import subprocess
import sys
import tempfile
import time


def size(path):
    """Bytes of the files under `path` (those removed while counting are skipped)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total


def main():
    args = [a for a in sys.argv[1:] if a != "--no-set"]
    if len(args) != 5:
        sys.exit(__doc__)
    rafle, variant, pieces, at_once, data = args
    with_set = "--no-set" not in sys.argv[1:]
    at_once = int(at_once)
    os.makedirs(data, exist_ok=True)
    plan = json.loads(subprocess.check_output(
        [rafle, "plan", "-v", variant, "-p", pieces, "--data", data, "--json"]))
    units = plan["units"]
    place = {u["name"]: i for i, u in enumerate(units)}
    needs = [[place[n] for n in u["needs"]] for u in units]
    work = os.path.join(data, variant, ".rafle-work")
    started, done, running = [False] * len(units), [False] * len(units), {}
    peak_work = peak_data = 0
    logs = tempfile.TemporaryDirectory()
    start = time.time()
    while True:
        for i, unit in enumerate(units):
            if len(running) >= at_once:
                break
            if not started[i] and all(done[d] for d in needs[i]):
                started[i] = True
                command = [rafle, "generate", "--unit", unit["name"], "--data", data,
                           "--threads", "1"]
                if with_set:
                    command += ["--set", pieces]
                log = open(os.path.join(logs.name, f"{i}.err"), "w+b")
                running[i] = (subprocess.Popen(
                    command, stdout=subprocess.DEVNULL, stderr=log), log)
        if not running:
            break
        time.sleep(0.2)
        peak_work = max(peak_work, size(work))
        peak_data = max(peak_data, size(data))
        for i, (process, log) in list(running.items()):
            if process.poll() is not None:
                if process.returncode != 0:
                    log.seek(0)
                    sys.exit(f"{units[i]['name']} failed: {log.read().decode()}")
                log.close()
                done[i] = True
                del running[i]
    left = size(work)
    tables = size(data) - left
    mib = 1 << 20
    print(f"{variant} up to {pieces}, {len(units)} units {at_once} at a time, "
          f"{'with' if with_set else 'without'} --set: {time.time() - start:.0f} s; work "
          f"directory at most {peak_work / mib:.1f} MiB, data directory at most "
          f"{peak_data / mib:.1f} MiB ({peak_data / tables:.2f}x the tables, "
          f"{tables / mib:.1f} MiB), work files left {left / mib:.1f} MiB")


if __name__ == "__main__":
    main()
