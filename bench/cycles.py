#!/usr/bin/env python3
"""Connect, snap, leave, over and over: the server's RSS every 2,000 cycles, then once its canvases have
unloaded. For the memory figures in docs/results/ (the hardening runs):

    .build/release/snapboard-server --port 0 --data /tmp/cycles.sqlite --idle-unload 1 --durability normal &
    python3 bench/cycles.py PORT $! 12000 500

usage: cycles.py PORT SERVER_PID CYCLES CANVASES
"""
import os
import random
import socket
import sys
import time

port, pid, total, canvases = (int(a) for a in sys.argv[1:5])


def frame(payload):
    """One masked text frame, as a client sends it (payloads here are under 126 bytes)."""
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return round(int(line.split()[1]) / 1024, 1)


def cycle(i):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(5)
        s.send((f"GET /v1/canvases/cycle-{i % canvases}?client=c{i} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        x, y = random.randint(0, 1000), random.randint(0, 700)
        s.send(frame(b'{"type":"op","id":"o%d","op":"snap","x":%d,"y":%d}' % (i, x, y)))
        seen = b""
        while b'"ack"' not in seen and b'"reject"' not in seen:
            data = s.recv(65536)
            if not data:
                break
            seen += data
        s.send(bytes([0x88, 0x82]) + b"\0\0\0\0" + b"\x03\xe8")  # close 1000, masked with zeros


print("start", rss_mb(), "MB")
for i in range(total):
    cycle(i)
    if (i + 1) % 2000 == 0:
        print(i + 1, "cycles", rss_mb(), "MB", flush=True)
time.sleep(12)  # idle unload after 1 s, then the tick's trim, at most every 10 s
print("after unload", rss_mb(), "MB")
