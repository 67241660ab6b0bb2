#!/usr/bin/env python3
"""An independent W1 load generator, to check snapboard-load against: Python's standard library only.

It shares no code with snapboard-load and no WebSocket library: the client handshake and framing (RFC 6455,
masked text frames out, unmasked frames in, fragments joined, pings answered) are written here, on one
epoll loop. It drives the same workload as `make bench`'s W1: rooms of 10 clients, each dragging its own
shape at --rate ops a second in gestures of --steps ops (begin, updates, end) on an open-loop schedule, each
client starting anywhere in its first gesture's cycle; latencies count from the intended send time.

It measures what snapboard-load measures, the same way: op -> peer (an op's intended send time to the moment
another client of its room receives a delta listing its id; op ids are "<client>.<counter>") and op -> ack
(an `end` to its ack), over ops meant to go out in the measured window. It does not check convergence.

    python3 bench/w1gen.py --url ws://127.0.0.1:8080 --clients 200 --duration 10 --warmup 3 [--json FILE]

With --server-pid it also reports the server's CPU over the window, like snapboard-load.
"""

import argparse
import base64
import heapq
import json
import math
import os
import random
import re
import resource
import selectors
import socket
import struct
import sys
import time
from array import array
from urllib.parse import urlparse

OPS = re.compile(rb'"ops":\[([^\]]*)\]')
TAG = re.compile(rb'"(\d+)\.(\d+)"')
ACK = re.compile(rb'"type":"ack","id":"(\d+)\.(\d+)"')
RING = 1024  # ops remembered per client, as snapboard-load's SendLog
KINDS = [
    '{"kind":"roundedRect","w":96,"h":64}', '{"kind":"oval","w":80,"h":56}', '{"kind":"triangle","w":72,"h":72}',
    '{"kind":"polygon","w":64,"h":64,"sides":6}', '{"kind":"star","w":72,"h":72,"points":5,"inner":0.5}',
    '{"kind":"dot","w":24}',
]


def now_us():
    return time.monotonic_ns() // 1000


def mask_frame(payload, opcode=0x1):
    """A masked client frame holding `payload`."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    key = random.getrandbits(32).to_bytes(4, "big")
    stream = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big") if n else b""
    return head + key + masked


class Client:
    __slots__ = ("room", "index", "sock", "buf", "frags", "counter", "times", "counters", "x", "y",
                 "gesture", "step", "open", "welcomed", "seeded", "sent_at_end")

    def __init__(self, room, index):
        self.room, self.index = room, index
        self.buf = bytearray()
        self.frags = None
        self.counter = 1
        self.times = array("q", [0]) * RING
        self.counters = array("q", [-1]) * RING
        self.gesture = None
        self.step = 0
        self.open = False
        self.welcomed = False
        self.seeded = False


class Run:
    def __init__(self, opts):
        self.o = opts
        u = urlparse(opts.url)
        self.host, self.port = u.hostname or "127.0.0.1", u.port or 80
        self.rng = random.Random(opts.seed)
        self.clients = [Client(r, i) for r in range(opts.clients // 10) for i in range(10)]
        self.sel = selectors.EpollSelector()
        self.period = 1_000_000 / opts.rate
        self.peer = array("q")
        self.ack = array("q")
        self.sent = self.committing = self.deltas = self.drops = 0
        self.measure_start = self.measure_end = 1 << 62

    # Connecting: blocking handshakes before the run, then non-blocking.
    def connect(self, c):
        s = socket.create_connection((self.host, self.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        path = f"/v1/canvases/py-{self.o.seed}-{c.room}?client=py-{self.o.seed}-{c.room}-{c.index}&name=p{c.index}&revision=4"
        s.sendall((f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            more = s.recv(65536)
            if not more:
                raise SystemExit("connection closed during the handshake")
            data += more
        head, rest = data.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit(f"upgrade refused: {head.splitlines()[0]!r}")
        s.setblocking(False)
        c.sock, c.open = s, True
        c.buf += rest
        self.sel.register(s, selectors.EVENT_READ, c)

    def send(self, c, text):
        try:
            c.sock.send(mask_frame(text.encode()))
        except BlockingIOError:
            c.sock.setblocking(True)  # a full socket buffer: rare, and then the server is the one behind
            c.sock.sendall(mask_frame(text.encode()))
            c.sock.setblocking(False)

    # Receiving
    def readable(self, c, now):
        try:
            data = c.sock.recv(262144)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.close(c)
            return
        buf = c.buf
        buf += data
        at = 0
        n = len(buf)
        while n - at >= 2:
            b0, b1 = buf[at], buf[at + 1]
            length, head = b1 & 0x7F, 2
            if length == 126:
                if n - at < 4:
                    break
                length, head = struct.unpack_from("!H", buf, at + 2)[0], 4
            elif length == 127:
                if n - at < 10:
                    break
                length, head = struct.unpack_from("!Q", buf, at + 2)[0], 10
            if n - at < head + length:
                break
            payload = bytes(buf[at + head:at + head + length])
            at += head + length
            opcode, fin = b0 & 0x0F, b0 & 0x80
            if opcode == 0x9:
                c.sock.send(mask_frame(payload, 0xA))
                continue
            if opcode == 0x8:
                self.close(c)
                return
            if opcode in (0x1, 0x2):
                if not fin:
                    c.frags = [payload]
                    continue
            elif opcode == 0x0:
                c.frags.append(payload)
                if not fin:
                    continue
                payload, c.frags = b"".join(c.frags), None
            else:
                continue
            self.message(c, payload, now)
        del buf[:at]

    def message(self, c, m, now):
        if not c.welcomed and b'"type":"welcome"' in m[:40]:
            c.welcomed = True
            return
        room = self.clients[c.room * 10:c.room * 10 + 10]
        start = self.measure_start
        for ops in OPS.finditer(m):
            self.deltas += 1
            for t in TAG.finditer(ops.group(1)):
                who, k = int(t.group(1)), int(t.group(2))
                if who == c.index or who >= 10:
                    continue
                sender = room[who]
                slot = k & (RING - 1)
                if sender.counters[slot] == k:
                    sent = sender.times[slot]
                    if sent >= start:
                        self.peer.append(now - sent)
        for a in ACK.finditer(m):
            k = int(a.group(2))
            if k == 0:
                c.seeded = True
                continue
            slot = k & (RING - 1)
            if c.counters[slot] == k and c.times[slot] >= start:
                self.ack.append(now - c.times[slot])

    def close(self, c):
        if c.open:
            c.open = False
            self.drops += 1
            self.sel.unregister(c.sock)
            c.sock.close()

    def poll(self, timeout):
        for key, _ in self.sel.select(timeout):
            self.readable(key.data, now_us())

    # Sending: one heap of (due time, client), an op per period per client.
    def plan(self, c):
        """A move of --steps ops towards a point beside another shape of the room, with a sideways wobble."""
        r = self.rng
        other = self.clients[c.room * 10 + r.randrange(10)]
        tx = min(max(other.x + r.choice((-1, 1)) * (90 + r.uniform(-4, 4)), 100), 3996)
        ty = min(max(other.y + r.uniform(-40, 40), 100), 3996)
        if r.random() < 0.3:
            tx, ty = r.uniform(400, 3696), r.uniform(400, 3696)
        return (tx - c.x, ty - c.y, 24 * (r.random() - 0.5))

    def tick(self, c, due):
        if not c.open:
            return False
        if c.gesture is None:
            c.gesture, c.step = self.plan(c), 0
        dx, dy, wobble = c.gesture
        steps = self.o.steps
        t = c.step / (steps - 1)
        length = max(1.0, math.hypot(dx, dy))
        side = wobble * math.sin(t * math.pi)
        x, y = round(dx * t - dy / length * side, 2), round(dy * t + dx / length * side, 2)
        phase = "begin" if c.step == 0 else "end" if c.step >= steps - 1 else "update"
        k = c.counter
        c.counter += 1
        self.send(c, f'{{"type":"op","id":"{c.index}.{k}","op":"move","shape":"P{c.index}","phase":"{phase}","dx":{x:g},"dy":{y:g}}}')
        c.times[k & (RING - 1)] = due
        c.counters[k & (RING - 1)] = k
        if self.measure_start <= due < self.measure_end:
            self.sent += 1
            if phase == "end":
                self.committing += 1
        if phase == "end":
            c.x, c.y = c.x + dx, c.y + dy
            c.gesture = None
        else:
            c.step += 1
        return True

    def run(self):
        o = self.o
        for c in self.clients:
            self.connect(c)
            c.x, c.y = self.rng.uniform(200, 3896), self.rng.uniform(200, 3896)
        print(f"connected: {len(self.clients)}", file=sys.stderr)
        deadline = now_us() + 10_000_000
        while not all(c.welcomed for c in self.clients) and now_us() < deadline:
            self.poll(0.05)
        for c in self.clients:
            self.send(c, f'{{"type":"op","id":"{c.index}.0","op":"snap","x":{c.x:.0f},"y":{c.y:.0f},'
                         f'"shapeId":"P{c.index}","shape":{KINDS[c.index % len(KINDS)]}}}')
        while not all(c.seeded for c in self.clients) and now_us() < deadline:
            self.poll(0.05)
        begin = now_us() + 200_000
        self.measure_start = begin + int(o.warmup * 1_000_000)
        self.measure_end = self.measure_start + int(o.duration * 1_000_000)
        cycle = self.period * o.steps
        heap = [(begin + int(self.rng.random() * cycle), i) for i in range(len(self.clients))]
        heapq.heapify(heap)
        cpu = None
        print(f"running: warm-up {o.warmup} s, then {o.duration} s measured", file=sys.stderr)
        while True:
            now = now_us()
            if cpu is None and now >= self.measure_start:
                cpu = (self.cpu(), now, server_cpu(o.server_pid))
            if now >= self.measure_end:
                break
            while heap[0][0] <= now:
                due, i = heapq.heappop(heap)
                if self.tick(self.clients[i], due):
                    heapq.heappush(heap, (int(due + self.period), i))
            wait = max(0, heap[0][0] - now_us()) / 1_000_000
            self.poll(min(wait, 0.05))
        end = now_us()
        own = (self.cpu() - cpu[0]) / ((end - cpu[1]) / 1e6) * 100
        server = server_cpu(o.server_pid)
        server_pct = (server - cpu[2]) / ((end - cpu[1]) / 1e6) * 100 if server is not None else None
        # Late deliveries of the window's ops.
        stop = now_us() + 1_000_000
        while now_us() < stop:
            self.poll(0.05)
        return self.report(own, server_pct)

    @staticmethod
    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def report(self, own, server):
        def summary(samples):
            if not samples:
                return {"count": 0}
            s = sorted(samples)
            pick = lambda p: s[min(len(s) - 1, int(math.ceil(p / 100 * len(s))) - 1)] / 1000
            return {"count": len(s), "p50": pick(50), "p90": pick(90), "p99": pick(99), "p99.9": pick(99.9),
                    "max": s[-1] / 1000}
        return {"generator": "bench/w1gen.py", "clients": len(self.clients), "rate": self.o.rate, "steps": self.o.steps,
                "seconds": self.o.duration, "opsSent": self.sent, "commits": self.committing, "deltas": self.deltas,
                "drops": self.drops, "peerLatency": summary(self.peer), "ackLatency": summary(self.ack),
                "generatorCpuPercent": own, "serverCpuPercent": server}


def server_cpu(pid):
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="ws://127.0.0.1:8080")
    p.add_argument("--clients", type=int, default=200, help="clients, in rooms of 10")
    p.add_argument("--rate", type=float, default=60.0, help="ops a second per client")
    p.add_argument("--steps", type=int, default=120, help="ops per gesture, begin and end included")
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--server-pid", type=int)
    p.add_argument("--json")
    o = p.parse_args()
    if o.clients < 10 or o.clients % 10 or o.steps < 2:
        p.error("--clients must be a multiple of 10 and --steps at least 2")
    r = Run(o).run()
    peer, ack = r["peerLatency"], r["ackLatency"]
    fmt = lambda s: " · ".join(f"{k} {s[k]:.2f}" for k in ("p50", "p90", "p99", "p99.9", "max")) + f" ms (n={s['count']})" if s["count"] else "none"
    print(f"w1gen           {r['clients']} clients in rooms of 10 at {o.rate:g} Hz, {o.duration:g} s measured")
    print(f"ops             {r['opsSent']} sent, {r['commits']} commits; {r['deltas']} deltas received; {r['drops']} dropped")
    print(f"op → ack        {fmt(ack)}")
    print(f"op → peer       {fmt(peer)}")
    print(f"generator CPU   {r['generatorCpuPercent']:.1f} % of a core" + (f"; server CPU {r['serverCpuPercent']:.1f} %" if r["serverCpuPercent"] is not None else ""))
    if o.json:
        with open(o.json, "w") as f:
            json.dump(r, f, indent=2)
    sys.exit(1 if r["drops"] else 0)


if __name__ == "__main__":
    main()
