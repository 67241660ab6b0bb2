#!/usr/bin/env python3
"""make bench-cluster: the cluster on PostgreSQL beside one node on SQLite.

1. op -> ack: W1's drags (rooms of 10, all dragging at 60 Hz; every gesture's end is a commit) with
   snapboard-load, straight to one node on SQLite, then through HAProxy (deploy/haproxy.cfg) to three nodes
   sharing one PostgreSQL 15 (Debian's, started here in a temp dir, fsync on). p50 and p99 of op -> ack and of
   op -> peer, ops in per second, drops, and each process's CPU.
2. W1 capacity: the largest client count (of --capacity-steps) that three nodes on PostgreSQL hold through the
   proxy with p99 op -> peer <= 50 ms and no drops, as W4 asks of one node.
3. Recovery after a node kill, --kills times: clients committing continuously on --canvases canvases through
   the proxy (each following a 421 to the owner, resending unanswered ops after reconnecting); SIGKILL to the
   node that owns the most canvases; for each of its canvases, the time from the kill to the first ack after
   it (which a surviving node gives: the dead one acks nothing). p50 and max over every such canvas and kill.
   The killed node is restarted before the next kill.

Everything runs on this machine's 2 cores: the nodes, PostgreSQL, HAProxy and the load tool share them, so
read the cluster's latencies as what the protocol costs here, not what three machines would give.
Usage: cluster.py BIN_DIR [--clients N] [--duration S] [--kills N] [--capacity-steps 100,200,300] [--lease S]
"""
import argparse
import base64
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import RESULTS, start_server, stop_server  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")
PG_BIN = "/usr/lib/postgresql/15/bin"


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except OSError:
        return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_as_postgres(*args):
    subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Postgres:
    """PostgreSQL 15 in a temp dir, as user postgres, on a free loopback port; role and database snapboard."""

    def __init__(self, scratch):
        self.dir = os.path.join(scratch, "pg")
        os.makedirs(self.dir)
        os.chmod(scratch, 0o755)
        os.chmod(self.dir, 0o777)
        self.port = free_port()
        data = os.path.join(self.dir, "data")
        run_as_postgres(f"{PG_BIN}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_buffers=64MB"
        run_as_postgres(f"{PG_BIN}/pg_ctl", "-D", data, "-l", os.path.join(self.dir, "log"), "-o", opts, "-w", "start")
        self.data = data
        for sql in ("CREATE ROLE snapboard LOGIN IN ROLE pg_monitor", "CREATE DATABASE snapboard OWNER snapboard"):
            subprocess.run([f"{PG_BIN}/psql", "-X", "-q", "-h", self.dir, "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-c", sql],
                           check=True, stdout=subprocess.DEVNULL)
        self.url = f"postgresql://snapboard@127.0.0.1:{self.port}/snapboard?connect_timeout=2"

    def pids(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return [int(f.readline())]
        except OSError:
            return []

    def stop(self):
        subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_proxy(addresses, scratch, port=None):
    """HAProxy on deploy/haproxy.cfg, keeping only as many `server`/`use-server` lines as there are nodes."""
    lines = open(os.path.join(ROOT, "deploy", "haproxy.cfg")).read().splitlines()
    keep = {f"node{i + 1}" for i in range(len(addresses))}
    kept = [l for l in lines if not (l.split()[:1] in (["server"], ["use-server"]) and l.split()[1] not in keep)]
    cfg = os.path.join(scratch, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write("\n".join(kept) + "\n")
    port = port or free_port()
    stats = free_port()
    env = dict(os.environ, SNAPBOARD_PROXY_BIND=f"127.0.0.1:{port}", SNAPBOARD_STATS_BIND=f"127.0.0.1:{stats}")
    for i, a in enumerate(addresses):
        env[f"SNAPBOARD_NODE{i + 1}"] = a
    proc = subprocess.Popen(["haproxy", "-db", "-f", cfg], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.stats_port = stats
    wait_until(lambda: node_states(stats) and all(s == "UP" for s in node_states(stats).values()), 15, "HAProxy to see every node UP")
    return proc, port


def node_states(stats_port):
    try:
        status, body = http_get(stats_port, "/stats;csv")
    except OSError:
        return {}
    states = {}
    for line in body.splitlines():
        f = line.split(",")
        if len(f) > 17 and f[0] == "nodes" and f[1].startswith("node"):
            states[f[1]] = f[17]
    return states


def http_get(port, path, host="127.0.0.1"):
    with socket.create_connection((host, port), timeout=3) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode(errors="replace")


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise SystemExit(f"bench-cluster: gave up waiting for {what}")


def start_node(bin_dir, k, port, proxy_port, database_url, lease, scratch):
    """Node k (1-based) of the cluster, on `port`, advertising the proxy's /n/nodeK prefix."""
    log = open(os.path.join(scratch, f"node{k}.log"), "a")
    cmd = [os.path.join(bin_dir, "snapboard-server"), "--port", str(port), "--log-level", "warning", "--width", "4096", "--height", "4096",
           "--database-url", database_url, "--node-id", f"node{k}", "--advertise-url", f"http://127.0.0.1:{proxy_port}/n/node{k}",
           "--lease-seconds", str(lease)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    if not re.search(r":(\d+)\s*$", line):
        proc.kill()
        raise SystemExit(f"bench-cluster: node{k} did not start: {line!r} (see {log.name})")
    return proc


class Cluster:
    def __init__(self, bin_dir, scratch, lease):
        self.bin_dir, self.scratch, self.lease = bin_dir, scratch, lease
        self.pg = Postgres(scratch)
        self.proxy_port = free_port()
        self.ports = [free_port() for _ in range(3)]
        self.nodes = [start_node(bin_dir, k + 1, self.ports[k], self.proxy_port, self.pg.url, lease, scratch) for k in range(3)]
        self.proxy, _ = start_proxy([f"127.0.0.1:{p}" for p in self.ports], scratch, self.proxy_port)

    def restart(self, k):
        self.nodes[k - 1] = start_node(self.bin_dir, k, self.ports[k - 1], self.proxy_port, self.pg.url, self.lease, self.scratch)
        wait_until(lambda: node_states(self.proxy.stats_port).get(f"node{k}") == "UP", 15, f"node{k} UP again")

    def owners(self):
        status, body = http_get(self.proxy_port, "/v1/canvases?limit=1000")
        return {c["id"]: c.get("owner") for c in json.loads(body).get("canvases", [])}

    def pids(self):
        out = {f"node{i + 1}": n.pid for i, n in enumerate(self.nodes)}
        out["haproxy"] = self.proxy.pid
        for i, p in enumerate(self.pg.pids()):
            out["postgres" if i == 0 else f"postgres{i}"] = p
        return out

    def stop(self):
        self.proxy.terminate()
        self.proxy.wait()
        for n in self.nodes:
            if n.poll() is None:
                stop_server(n)
        self.pg.stop()


def children(pid):
    """The pids whose parent is `pid` (PostgreSQL's backends, under its postmaster)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out


def group_cpu(pids):
    """CPU seconds by name; `postgres` sums the postmaster and every backend under it."""
    out = {}
    for k, p in pids.items():
        out[k] = cpu_seconds(p) + (sum(cpu_seconds(c) for c in children(p)) if k == "postgres" else 0)
    return out


SEEDS = iter(range(1, 1_000_000))


def w1(bin_dir, name, port, clients, duration, pids):
    """W1's drags at `clients` through ws://127.0.0.1:port; the load tool's report with every process's CPU
    (PostgreSQL's backends counted with it; one that ended during the run is missed)."""
    before = group_cpu(pids)
    out = os.path.join(RESULTS, f"{name}.json")
    started = time.monotonic()
    status = subprocess.run(["taskset", "-c", "1", os.path.join(bin_dir, "snapboard-load"), "--url", f"ws://127.0.0.1:{port}",
                             "--canvases", str(max(1, clients // 10)), "--clients", "10", "--shapes", "10", "--gesture-steps", "120",
                             "--moves-only", "--duration", str(duration), "--warmup", "3", "--ramp", "2", "--json", out,
                             # Fresh canvases for every run (the seed names them): the load tool's replicas start
                             # from the shapes it seeds, so a canvas an earlier run left behind fails its check.
                             "--seed", str(next(SEEDS))],
                            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode
    wall = time.monotonic() - started
    with open(out) as f:
        report = json.load(f)
    after = group_cpu(pids)
    report["processCPU"] = {k: round(100 * (after[k] - before[k]) / wall, 1) for k in pids}
    report["exitStatus"] = status
    with open(out, "w") as f:
        json.dump(report, f, indent=2, sort_keys=True)
    return report


def lat(report, key, q):
    return (report.get(key) or {}).get(q, float("nan"))


# ---- Recovery: a small WebSocket client of our own (stdlib only), one thread per client ----

class Writer(threading.Thread):
    """Commits snaps and moves of its own shapes on one canvas through the proxy; follows a 421 to the owner;
    after a close, reconnects and resends what is unanswered with the same ids. Records every ack's time."""

    def __init__(self, proxy_port, canvas, name, period):
        super().__init__(daemon=True)
        self.proxy_port, self.canvas, self.name_, self.period = proxy_port, canvas, name, period
        self.acks = []  # (monotonic time, seq)
        self.pending = {}  # op id -> message
        self.running = True
        self.n = 0
        self.lock = threading.Lock()

    def connect(self, path):
        for _ in range(3):
            s = socket.create_connection(("127.0.0.1", self.proxy_port), timeout=3)
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.proxy_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    raise OSError("closed during the upgrade")
                head += chunk
            head, _, rest = head.partition(b"\r\n\r\n")
            lines = head.decode(errors="replace").split("\r\n")
            status = int(lines[0].split(" ")[1])
            if status == 101:
                return s, rest
            s.close()
            location = next((l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("location:")), None)
            if status in (421, 307) and location:
                path = "/" + location.split("://", 1)[-1].split("/", 1)[1]
                continue
            raise OSError(f"upgrade answered {status}")
        raise OSError("too many redirects")

    def send(self, s, text):
        data = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(data) < 126:
            header += bytes([0x80 | len(data)])
        else:
            header += bytes([0x80 | 126]) + len(data).to_bytes(2, "big")
        s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def frames(self, buffer):
        """Complete frames at the start of buffer: (list of (opcode, fin, payload)), rest."""
        out = []
        while len(buffer) >= 2:
            length, start = buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    break
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + length:
                break
            out.append((buffer[0] & 0x0F, bool(buffer[0] & 0x80), buffer[start:start + length]))
            buffer = buffer[start + length:]
        return out, buffer

    def take(self, payload):
        try:
            value = json.loads(payload)
        except ValueError:
            return
        for m in value if isinstance(value, list) else [value]:
            if m.get("type") in ("ack", "reject") and m.get("id") in self.pending:
                with self.lock:
                    del self.pending[m["id"]]
                if m.get("type") == "ack" and not m.get("unchanged") and isinstance(m.get("seq"), int):
                    self.acks.append((time.monotonic(), m["seq"]))

    def run(self):
        rng = random.Random(hash(self.name_))
        shapes = []
        while self.running:
            try:
                s, buffer = self.connect(f"/v1/canvases/{self.canvas}?client={self.name_}")
            except OSError:
                time.sleep(0.1)
                continue
            s.settimeout(0.01)
            welcomed = False
            next_send = time.monotonic()
            message = b""
            try:
                while self.running:
                    frames, buffer = self.frames(buffer)
                    for opcode, fin, payload in frames:
                        if opcode == 8:
                            raise OSError("closed")
                        if opcode in (0, 1):
                            message += payload
                            if not fin:
                                continue
                            payload, message = message, b""
                            if not welcomed and b'"welcome"' in payload:
                                welcomed = True
                                with self.lock:
                                    resend = list(self.pending.values())
                                for text in resend:
                                    self.send(s, text)
                            self.take(payload)
                    if welcomed and time.monotonic() >= next_send and len(self.pending) < 8:
                        op = f"{self.name_}-{self.n}"
                        if len(shapes) < 3:
                            shape = f"{self.name_}-s{self.n}"
                            shapes.append(shape)
                            text = (f'{{"type":"op","id":"{op}","op":"snap","x":{rng.randint(50, 3000)},"y":{rng.randint(50, 3000)},'
                                    f'"shapeId":"{shape}","shape":{{"kind":"roundedRect"}}}}')
                        else:
                            text = f'{{"type":"op","id":"{op}","op":"move","shape":"{rng.choice(shapes)}","dx":{rng.choice([-30, -10, 10, 30])},"dy":{rng.choice([-20, 20])}}}'
                        self.n += 1
                        with self.lock:
                            self.pending[op] = text
                        self.send(s, text)
                        next_send = time.monotonic() + self.period
                    try:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise OSError("closed")
                        buffer += chunk
                    except socket.timeout:
                        pass
            except OSError:
                pass
            finally:
                s.close()

    def first_ack_after(self, t):
        return next((a for a, _ in self.acks if a >= t), None)


def recovery(cluster, kills, canvases):
    writers = [Writer(cluster.proxy_port, f"rec-{c}", f"rec-{c}-w", 0.05) for c in range(canvases)]
    for w in writers:
        w.start()
    wait_until(lambda: all(w.acks for w in writers), 30, "every canvas to ack")
    times = []
    try:
        for i in range(kills):
            time.sleep(1.5)
            owners = cluster.owners()
            counts = {}
            for w in writers:
                counts.setdefault(owners.get(w.canvas), []).append(w)
            victim_id = max((k for k in counts if k), key=lambda k: len(counts[k]))
            k = int(victim_id[4:])
            theirs = counts[victim_id]
            killed = time.monotonic()
            cluster.nodes[k - 1].send_signal(signal.SIGKILL)
            cluster.nodes[k - 1].wait()
            wait_until(lambda: all(w.first_ack_after(killed + 0.05) for w in theirs), 30, f"kill {i + 1}: {victim_id}'s canvases to ack again")
            these = [w.first_ack_after(killed + 0.05) - killed for w in theirs]
            times += these
            print(f"  kill {i + 1}: {victim_id} with {len(theirs)} canvases; served again after {statistics.median(these):.2f} s median, "
                  f"{max(these):.2f} s max", flush=True)
            cluster.restart(k)
    finally:
        for w in writers:
            w.running = False
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--duration", type=float, default=15)
    parser.add_argument("--kills", type=int, default=int(os.environ.get("BENCH_KILLS", "20")))
    parser.add_argument("--canvases", type=int, default=12, help="canvases written during the kills")
    parser.add_argument("--capacity-steps", default="200,300,500")
    parser.add_argument("--lease", type=int, default=5)
    opts = parser.parse_args()
    if not (1 <= opts.kills <= 1000 and 10 <= opts.clients <= 5000 and 3 <= opts.duration <= 3600 and 3 <= opts.lease <= 600):
        raise SystemExit("bench-cluster: --kills 1…1000, --clients 10…5000, --duration 3…3600, --lease 3…600")
    steps = [int(x) for x in opts.capacity_steps.split(",") if x]
    os.makedirs(RESULTS, exist_ok=True)
    results = {}

    scratch = tempfile.mkdtemp(prefix="snapboard-cluster-")
    try:
        os.makedirs(os.path.join(scratch, "sqlite"))
        proc, port = start_server(opts.bin_dir, os.path.join(scratch, "sqlite"), ["--width", 4096, "--height", 4096])
        try:
            results["sqlite-1"] = w1(opts.bin_dir, "cluster-sqlite-1", port, opts.clients, opts.duration, {"node": proc.pid})
        finally:
            stop_server(proc)

        cluster = Cluster(opts.bin_dir, scratch, opts.lease)
        try:
            results["postgres-3"] = w1(opts.bin_dir, "cluster-postgres-3", cluster.proxy_port, opts.clients, opts.duration, cluster.pids())
            held = []
            for clients in steps:
                r = w1(opts.bin_dir, f"cluster-postgres-3-{clients}", cluster.proxy_port, clients, opts.duration, cluster.pids())
                ok = r.get("drops", 1) == 0 and lat(r, "peerLatency", "p99") <= 50 and r["exitStatus"] == 0
                held.append((clients, ok, lat(r, "peerLatency", "p99"), lat(r, "ackLatency", "p99"), r.get("drops", 0)))
            results["capacity"] = held
            print(f"\nrecovery: {opts.kills} kills of the node owning the most of {opts.canvases} canvases (lease {opts.lease} s)", flush=True)
            times = recovery(cluster, opts.kills, opts.canvases)
            results["recovery"] = {"kills": opts.kills, "canvases": len(times), "p50": statistics.median(times), "max": max(times)}
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    with open(os.path.join(RESULTS, "cluster.json"), "w") as f:
        json.dump(results, f, indent=2, default=str)
    print(f"\nW1's drags, {opts.clients} clients in rooms of 10 at 60 Hz, {opts.duration:.0f} s measured")
    print(f"{'run':<34} {'ops in/s':>8} {'ack p50':>8} {'ack p99':>8} {'peer p99':>9} {'drops':>6}  CPU % of one core")
    for name, label in (("sqlite-1", "one node, SQLite"), ("postgres-3", "three nodes, PostgreSQL, HAProxy")):
        r = results[name]
        ops = r["windowOps"] / r["seconds"] if r.get("seconds") else float("nan")
        shares = ", ".join(f"{k} {v:.0f}" for k, v in r["processCPU"].items())
        print(f"{label:<34} {ops:>8.0f} {lat(r, 'ackLatency', 'p50'):>8.1f} {lat(r, 'ackLatency', 'p99'):>8.1f} "
              f"{lat(r, 'peerLatency', 'p99'):>9.1f} {r.get('drops', 0):>6}  {shares}")
    largest = max((c for c, ok, *_ in results["capacity"] if ok), default=0)
    print("W1 capacity, three nodes on PostgreSQL: " + "; ".join(f"{c}: peer p99 {p:.1f} ms, ack p99 {a:.1f} ms, {d} drops{'' if ok else ' (not held)'}"
                                                          for c, ok, p, a, d in results["capacity"]) + f"; largest held {largest}")
    rec = results["recovery"]
    print(f"recovery after a node kill: p50 {rec['p50']:.2f} s, max {rec['max']:.2f} s over {rec['kills']} kills ({rec['canvases']} canvases moved)")


if __name__ == "__main__":
    main()
