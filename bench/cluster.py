#!/usr/bin/env python3
"""make bench-cluster: what HAProxy costs. W1's drags (rooms of 10, all dragging at 60 Hz) straight to one
node, then through HAProxy (deploy/haproxy.cfg) to one node and to two, with every process's CPU.

Each node and the proxy are measured from /proc over the load run (warm-up included); the load tool runs on
core 1, everything else where the kernel puts it. On a 2-core machine two nodes share the cores with the proxy
and the load tool, so the two-node row shows the spread and the proxy's share, not a doubling.
Usage: cluster.py BIN_DIR [--clients N] [--duration S]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import RESULTS, start_server, stop_server  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_proxy(node_ports, scratch):
    """HAProxy on deploy/haproxy.cfg, keeping only as many `server` lines as there are nodes."""
    lines = open(os.path.join(ROOT, "deploy", "haproxy.cfg")).read().splitlines()
    keep = {f"node{i + 1}" for i in range(len(node_ports))}
    kept = [l for l in lines if not (l.strip().startswith("server node") and l.split()[1] not in keep)]
    cfg = os.path.join(scratch, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write("\n".join(kept) + "\n")
    port = free_port()
    env = dict(os.environ, SNAPBOARD_PROXY_BIND=f"127.0.0.1:{port}", SNAPBOARD_STATS_BIND=f"127.0.0.1:{free_port()}")
    for i, p in enumerate(node_ports):
        env[f"SNAPBOARD_NODE{i + 1}"] = f"127.0.0.1:{p}"
    proc = subprocess.Popen(["haproxy", "-db", "-f", cfg], env=env, stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    return proc, port


def run(bin_dir, name, nodes, proxied, clients, duration):
    scratch = tempfile.mkdtemp(prefix="snapboard-cluster-")
    servers, proxy = [], None
    try:
        for i in range(nodes):
            os.makedirs(os.path.join(scratch, f"n{i}"))
            servers.append(start_server(bin_dir, os.path.join(scratch, f"n{i}"), ["--width", 4096, "--height", 4096]))
        port = servers[0][1]
        if proxied:
            proxy, port = start_proxy([p for _, p in servers], scratch)
        pids = {f"node{i + 1}": s[0].pid for i, s in enumerate(servers)}
        if proxy:
            pids["haproxy"] = proxy.pid
        before = {k: cpu_seconds(p) for k, p in pids.items()}
        out = os.path.join(RESULTS, f"{name}.json")
        started = time.monotonic()
        status = subprocess.run(["taskset", "-c", "1", os.path.join(bin_dir, "snapboard-load"), "--url", f"ws://127.0.0.1:{port}",
                                 "--canvases", str(clients // 10), "--clients", "10", "--shapes", "10", "--gesture-steps", "120",
                                 "--moves-only", "--duration", str(duration), "--warmup", "3", "--ramp", "2", "--json", out],
                                stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode
        wall = time.monotonic() - started
        used = {k: cpu_seconds(p) - before[k] for k, p in pids.items()}
        with open(out) as f:
            report = json.load(f)
        report["processCPU"] = {k: round(100 * v / wall, 1) for k, v in used.items()}
        report["exitStatus"] = status
        with open(out, "w") as f:
            json.dump(report, f, indent=2, sort_keys=True)
        return report
    finally:
        if proxy:
            proxy.terminate()
            proxy.wait()
        for proc, _ in servers:
            stop_server(proc)
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--duration", type=float, default=15)
    opts = parser.parse_args()
    os.makedirs(RESULTS, exist_ok=True)
    rows = []
    for name, nodes, proxied in (("cluster-direct-1", 1, False), ("cluster-proxy-1", 1, True), ("cluster-proxy-2", 2, True)):
        r = run(opts.bin_dir, name, nodes, proxied, opts.clients, opts.duration)
        ops = r["windowOps"] / r["seconds"] if r.get("seconds") else float("nan")
        lat = (r.get("peerLatency") or {}).get("p99", float("nan"))
        cpu = r["processCPU"]
        rows.append((name, ops, lat, r.get("drops", 0), cpu, r["exitStatus"]))
    print(f"\n{opts.clients} clients in rooms of 10, all dragging at 60 Hz, {opts.duration:.0f} s measured")
    print(f"{'run':<18} {'ops in/s':>8} {'p99 ms':>8} {'drops':>6}  CPU % of one core, by process (whole run)")
    for name, ops, lat, drops, cpu, status in rows:
        shares = ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
        print(f"{name:<18} {ops:>8.0f} {lat:>8.1f} {drops:>6}  {shares}{'' if status == 0 else '  (convergence check failed)'}")


if __name__ == "__main__":
    main()
