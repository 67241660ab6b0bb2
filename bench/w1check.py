#!/usr/bin/env python3
"""snapboard-load against an independent generator (bench/w1gen.py) on the same W1 workload.

Each run gets a fresh release server on core 0 (`--width 4096 --height 4096`, a fresh SQLite file) and the
generator on core 1. The two generators alternate, `--pairs` times, at `--clients` clients in rooms of 10,
all dragging at 60 Hz in 2 s gestures of 120 moves. It prints each run's p99 op -> peer and op -> ack, the
server's and the generator's CPU, and the ratio of the medians of the p99s (the check: within 10 %).

With `--together`, each round runs both at once against one server instead, each with half the clients
(rooms of its own) and both on core 1: on a machine shared with other work, whose load changes from one
run to the next, both then measure the same server in the same seconds.

    python3 bench/w1check.py BIN_DIR [--clients 100] [--pairs 3] [--duration 10] [--together] [--json FILE]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import start_server, stop_server  # noqa: E402


def snapboard_load_cmd(bin_dir, port, pid, clients, duration, out, ramp=2):
    return ["taskset", "-c", "1", os.path.join(bin_dir, "snapboard-load"), "--url", f"ws://127.0.0.1:{port}",
            "--canvases", str(clients // 10), "--clients", "10", "--shapes", "10", "--gesture-steps", "120",
            "--moves-only", "--duration", str(duration), "--warmup", "3", "--ramp", str(ramp), "--server-pid", str(pid),
            "--json", out]


def w1gen_cmd(port, pid, clients, duration, out):
    return ["taskset", "-c", "1", "/usr/bin/python3", os.path.join(HERE, "w1gen.py"), "--url", f"ws://127.0.0.1:{port}",
            "--clients", str(clients), "--duration", str(duration), "--warmup", "3", "--server-pid", str(pid),
            "--json", out]


def snapboard_load(bin_dir, port, pid, clients, duration, out):
    cmd = snapboard_load_cmd(bin_dir, port, pid, clients, duration, out)
    status = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return load_report(out, status)


def load_report(out, status):
    with open(out) as f:
        r = json.load(f)
    return {"tool": "snapboard-load", "status": status, "p99": r["peerLatency"].get("p99"),
            "p50": r["peerLatency"].get("p50"), "ackP99": r["ackLatency"].get("p99"),
            "ops": r["ops"]["sent"], "drops": r["drops"], "toolCpu": r.get("loadCpuPercent"),
            "serverCpu": (r.get("server") or {}).get("cpuPercent")}


def w1gen(port, pid, clients, duration, out):
    cmd = w1gen_cmd(port, pid, clients, duration, out)
    status = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return gen_report(out, status)


def together(bin_dir, port, pid, clients, duration, data):
    """Both generators at once, half the clients each; snapboard-load connects at once (no ramp) so that
    both measured windows open within a fraction of a second of each other."""
    a, b = os.path.join(data, "load.json"), os.path.join(data, "gen.json")
    half = clients // 20 * 10
    p1 = subprocess.Popen(snapboard_load_cmd(bin_dir, port, pid, half, duration, a, ramp=0),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p2 = subprocess.Popen(w1gen_cmd(port, pid, half, duration, b), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [load_report(a, p1.wait()), gen_report(b, p2.wait())]


def gen_report(out, status):
    with open(out) as f:
        r = json.load(f)
    return {"tool": "w1gen.py", "status": status, "p99": r["peerLatency"].get("p99"), "p50": r["peerLatency"].get("p50"),
            "ackP99": r["ackLatency"].get("p99"), "ops": r["opsSent"], "drops": r["drops"],
            "toolCpu": r["generatorCpuPercent"], "serverCpu": r["serverCpuPercent"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin_dir")
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--together", action="store_true", help="both at once on one server, half the clients each")
    p.add_argument("--json")
    o = p.parse_args()
    runs = []
    for n in range(o.pairs):
        for tool in (("together",) if o.together else ("snapboard-load", "w1gen.py")):
            data = tempfile.mkdtemp(prefix="snapboard-w1check-")
            try:
                proc, port = start_server(o.bin_dir, data, ["--width", 4096, "--height", 4096])
                try:
                    out = os.path.join(data, "report.json")
                    if tool == "together":
                        rs = together(o.bin_dir, port, proc.pid, o.clients, o.duration, data)
                    elif tool == "snapboard-load":
                        rs = [snapboard_load(o.bin_dir, port, proc.pid, o.clients, o.duration, out)]
                    else:
                        rs = [w1gen(port, proc.pid, o.clients, o.duration, out)]
                finally:
                    stop_server(proc)
            finally:
                shutil.rmtree(data, ignore_errors=True)
            for r in rs:
                runs.append(r)
                print(f"{r['tool']:15} p99 op→peer {r['p99']:7.2f} ms (p50 {r['p50']:6.2f}), p99 op→ack {r['ackP99'] or 0:6.2f} ms, "
                      f"{r['ops']} ops, {r['drops']} drops, generator CPU {r['toolCpu']:.0f} %, server CPU {r['serverCpu']:.0f} %",
                      flush=True)
    ours = statistics.median(r["p99"] for r in runs if r["tool"] == "snapboard-load")
    theirs = statistics.median(r["p99"] for r in runs if r["tool"] == "w1gen.py")
    ratio = ours / theirs
    if o.together:
        pairs = [runs[i]["p99"] / runs[i + 1]["p99"] for i in range(0, len(runs), 2)]
        print("ratio in each round: " + ", ".join(f"{x:.2f}" for x in pairs))
    print(f"W1-{o.clients}{' together' if o.together else ''}: p99 op→peer snapboard-load {ours:.2f} ms, w1gen.py {theirs:.2f} ms: ratio {ratio:.2f} "
          f"({'within' if abs(ratio - 1) <= 0.10 else 'NOT within'} 10 %)")
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"clients": o.clients, "together": o.together, "runs": runs, "ratio": ratio}, f, indent=2)


if __name__ == "__main__":
    main()
