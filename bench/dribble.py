#!/usr/bin/env python3
"""Dribbling uploads against a fresh snapboard-server: N connections from 127.0.0.1 each declare a 64 MiB
PUT body and send 64 KiB of it every 100 ms for D seconds, never finishing. Prints the server's RSS at
start and at its peak, and what the uploads were answered (docs/operations.md, "Limits").
Usage: python3 bench/dribble.py .build/release/snapboard-server [--connections 40] [--seconds 20] [server flags...]"""
import os, re, select, socket, subprocess, sys, tempfile, time, argparse
ap = argparse.ArgumentParser(); ap.add_argument("bin"); ap.add_argument("--connections", type=int, default=40)
ap.add_argument("--seconds", type=float, default=20)
opts, extra = ap.parse_known_args()
data = tempfile.mkdtemp(prefix="dribble-")
proc = subprocess.Popen([opts.bin, "--port", "0", "--data", os.path.join(data, "d.sqlite"), "--log-level", "error", *extra],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = int(re.search(r":(\d+)\s*$", proc.stdout.readline()).group(1))
def rss():
    with open(f"/proc/{proc.pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024
base = rss()
socks = []
for i in range(opts.connections):
    s = socket.create_connection(("127.0.0.1", port)); s.setblocking(False)
    s.send(f"PUT /v1/canvases/d{i} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {64 << 20}\r\n\r\n".encode())
    socks.append(s)
chunk = b" " * 65536
answers, peak, start = {}, base, time.time()
while time.time() - start < opts.seconds and socks:
    for s in list(socks):
        try:
            r, _, _ = select.select([s], [], [], 0)
            if r:
                got = s.recv(4096)
                status = got.split(b" ")[1].decode() if got.startswith(b"HTTP/") else "closed"
                answers[status] = answers.get(status, 0) + 1
                socks.remove(s); s.close(); continue
            s.send(chunk)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            answers["reset"] = answers.get("reset", 0) + 1
            socks.remove(s); s.close()
    peak = max(peak, rss())
    time.sleep(0.1)
print(f"baseline {base:.0f} MB, peak {peak:.0f} MB, still uploading after {opts.seconds:.0f} s: {len(socks)}, answered: {answers}")
for s in socks: s.close()
proc.terminate(); proc.wait()
