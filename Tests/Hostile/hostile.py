#!/usr/bin/env python3
"""The hostile-load suite of issue 14 (`make test-hostile`): a release `multiset serve` under the
attacks of the issue, each scenario asserting its numbers. Python standard library only (plus `wrk`
for the token flood and, for the last scenario, schemathesis in the repo's venv).

Scenarios: token flood; slow large bodies; many idle connections; pathological queries (largest
allowed images, 6 frames; a PNG chunk bomb); kill -9 during an upload and during a build; every CLI
command during a server-side build; schemathesis `--checks all`. Prints one line per measured figure
and exits 1 if any assertion fails. Results also go to WORK/hostile.json.
"""

import argparse
import atexit
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib

RESULTS = []
FAILED = []


def check(name, value, limit, ok, unit=""):
    RESULTS.append({"check": name, "value": value, "limit": limit, "ok": bool(ok), "unit": unit})
    mark = "ok  " if ok else "FAIL"
    print(f"  [{mark}] {name}: {value}{unit} (limit {limit}{unit})", flush=True)
    if not ok:
        FAILED.append(name)


def pct(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(round(p / 100 * (len(v) - 1)))))
    return v[k]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


STARTED = []


@atexit.register
def _stop_all():
    """No server outlives the suite, whatever failed."""
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Server:
    """`multiset serve --port 0` on a data directory; `url` is the /v1 root."""

    def __init__(self, binary, data, *extra):
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--data", data, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        STARTED.append(self.proc)
        line = self.proc.stdout.readline()
        self.url = next(w for w in line.split() if w.startswith("http://"))
        self.root = self.url[: -len("/v1")]
        self.port = int(self.root.rsplit(":", 1)[1])
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for _ in self.proc.stdout:
            pass

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill9(self):
        self.proc.kill()
        self.proc.wait()


def request(url, method="GET", body=None, headers=None, timeout=60):
    """(status, headers, body bytes, seconds)."""
    r = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    t = time.monotonic()
    try:
        with urllib.request.urlopen(r, timeout=timeout) as resp:
            data = resp.read()
            return resp.status, dict(resp.headers), data, time.monotonic() - t
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read(), time.monotonic() - t
    except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as e:
        return 0, {}, str(e).encode(), time.monotonic() - t


def multipart(parts, boundary="HostileB"):
    out = b""
    for name, filename, data in parts:
        disp = f'Content-Disposition: form-data; name="{name}"'
        if filename:
            disp += f'; filename="{filename}"'
        out += f"--{boundary}\r\n{disp}\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


class Prober(threading.Thread):
    """GET /healthz every `interval` seconds until stopped; latencies in ms, and errors."""

    def __init__(self, root, interval=0.05):
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.latencies, self.errors = [], 0
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            status, _, _, s = request(self.root + "/healthz", timeout=10)
            if status == 200:
                self.latencies.append(s * 1000)
            else:
                self.errors += 1
            self.stopping.wait(self.interval)

    def stop(self):
        self.stopping.set()
        self.join()


def token(url, client, secret):
    auth = base64.b64encode(f"{client}:{secret}".encode()).decode()
    status, _, body, _ = request(url + "/m2m/token", "POST", headers={"Authorization": "Basic " + auth})
    assert status == 200, (status, body)
    return json.loads(body)["token"]


def png_gray(width, height, rows, extra_chunks=b""):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + rows(y) for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra_chunks + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b""))


def ztxt_bomb(count, inflated):
    packed = zlib.compress(b"\0" * inflated, 9)
    data = b"Comment\0\0" + packed
    one = struct.pack(">I", len(data)) + b"zTXt" + data + struct.pack(">I", zlib.crc32(b"zTXt" + data) & 0xFFFFFFFF)
    return one * count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--multiset", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--st", help="schemathesis executable (st); skipped when absent")
    ap.add_argument("--flood-seconds", type=int, default=30)
    args = ap.parse_args()
    binary = os.path.abspath(args.multiset)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"hostile suite: {binary}, {os.cpu_count()} cores ({cpu})", flush=True)

    # Setup: a synthetic room scan built into a map, a client, query frames.
    t0 = time.monotonic()
    caps, data = f"{work}/caps", f"{work}/data"
    subprocess.run([binary, "synth", "--venue", "room", "--frames", "60", "--seed", "4", "--trajectory", "scan",
                    "--out", caps], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([binary, "map", "build", "--captures", caps, "--code", "MAP_HOSTILE00001", "--data", data],
                   check=True, stdout=subprocess.DEVNULL)
    created = subprocess.run([binary, "clients", "create", "--name", "hostile", "--data", data], check=True,
                             capture_output=True, text=True).stdout
    client = created.split("client id:")[1].split()[0]
    secret = created.split("client secret:")[1].split()[0]
    dataset = json.load(open(f"{caps}/captures.json"))
    frame = dataset["frames"][10]
    k = frame["intrinsics"]
    query_jpeg = open(f"{caps}/{frame['image']}", "rb").read()
    fields = [("mapCode", None, b"MAP_HOSTILE00001"), ("fx", None, str(k["fx"]).encode()),
              ("fy", None, str(k["fy"]).encode()), ("px", None, str(k["cx"]).encode()),
              ("py", None, str(k["cy"]).encode()), ("width", None, str(k["width"]).encode()),
              ("height", None, str(k["height"]).encode())]
    single, single_type = multipart(fields + [("queryImage", "q.jpg", query_jpeg)])
    big = f"{work}/big"
    subprocess.run([binary, "synth", "--venue", "room", "--frames", "6", "--seed", "4", "--trajectory", "walk",
                    "--width", "1280", "--height", "1280", "--out", big], check=True, stdout=subprocess.DEVNULL)
    big_set = json.load(open(f"{big}/captures.json"))
    print(f"setup: {time.monotonic() - t0:.1f} s", flush=True)

    def query(url, tok):
        return request(url + "/vps/map/query-form", "POST", single,
                       {"Authorization": "Bearer " + tok, "Content-Type": single_type})

    # 1. Token flood.
    print("1. token flood: 32 connections of wrong credentials", flush=True)
    server = Server(binary, data)
    try:
        tok = token(server.url, client, secret)
        for _ in range(5):
            query(server.url, tok)
        idle_health = [request(server.root + "/healthz")[3] * 1000 for _ in range(50)]
        idle_queries = [query(server.url, tok)[3] * 1000 for _ in range(20)]
        lua = f"{work}/flood.lua"
        with open(lua, "w") as f:
            f.write('wrk.method = "POST"\nwrk.headers["Authorization"] = "Basic '
                    + base64.b64encode(b"client_0000000000000000:wrong").decode() + '"\n')
        flood = subprocess.Popen(["wrk", "-t1", "-c32", f"-d{args.flood_seconds}s", "-s", lua,
                                  server.url + "/m2m/token"], stdout=subprocess.PIPE, text=True)
        time.sleep(1)
        prober = Prober(server.root)
        prober.start()
        flood_queries, query_errors = [], 0
        end = time.monotonic() + args.flood_seconds - 2
        while time.monotonic() < end:
            status, _, _, s = query(server.url, tok)
            if status == 200:
                flood_queries.append(s * 1000)
            else:
                query_errors += 1
        prober.stop()
        out = flood.communicate()[0]
        rate = next((l.split()[1] for l in out.splitlines() if l.startswith("Requests/sec")), "?")
        print(f"  flood: {rate} requests/s answered; idle /healthz p50 {pct(idle_health, 50):.1f} ms, "
              f"idle query p50 {pct(idle_queries, 50):.1f} ms", flush=True)
        check("flood: /healthz p99", round(pct(prober.latencies, 99), 1), 50, pct(prober.latencies, 99) <= 50, " ms")
        ratio = pct(flood_queries, 50) / pct(idle_queries, 50)
        check("flood: query p50 / idle p50", round(ratio, 2), 2, ratio <= 2)
        check("flood: legitimate errors", query_errors + prober.errors, 0, query_errors + prober.errors == 0)
    finally:
        server.stop()

    # 2. Slow large bodies.
    print("2. slow bodies: 50 authenticated and 50 anonymous connections declaring 40 MB", flush=True)
    server = Server(binary, data)
    try:
        tok = token(server.url, client, secret)
        base = rss_mb(server.proc.pid)
        peak = base
        prober = Prober(server.root)
        prober.start()
        socks, statuses = [], {}

        def open_body(i, authed):
            s = socket.socket()
            s.bind((f"127.0.0.{10 + i % 10}", 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", server.port))
            head = (f"POST /v1/vps/map/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\n"
                    f"Content-Length: {40 << 20}\r\n")
            if authed:
                head += f"Authorization: Bearer {tok}\r\n"
            s.sendall((head + "\r\n").encode())
            return s

        for i in range(50):
            socks.append(("auth", open_body(i, True)))
            socks.append(("anon", open_body(i, False)))
        chunk = b"x" * (1 << 20)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for kind, s in socks:
                try:
                    s.setblocking(False)
                    s.send(chunk)
                except (BlockingIOError, OSError):
                    pass
            peak = max(peak, rss_mb(server.proc.pid))
            time.sleep(0.25)
        for kind, s in socks:
            try:
                s.setblocking(True)
                s.settimeout(0.5)
                reply = s.recv(64).decode(errors="replace")
                code = reply.split(" ")[1] if reply.startswith("HTTP/") else "open"
            except (socket.timeout, OSError):
                code = "open"
            statuses.setdefault(kind, {}).setdefault(code, 0)
            statuses[kind][code] += 1
            s.close()
        prober.stop()
        print(f"  answers: {statuses}", flush=True)
        check("slow bodies: RSS growth", round(peak - base, 1), 100, peak - base <= 100, " MB")
        check("slow bodies: /healthz p99", round(pct(prober.latencies, 99), 1), 50, pct(prober.latencies, 99) <= 50,
              " ms")
        check("slow bodies: anonymous answered 401", statuses.get("anon", {}).get("401", 0), 50,
              statuses.get("anon", {}).get("401", 0) == 50)
    finally:
        server.stop()

    # 3. Many idle connections, then a body that trickles past its deadline.
    print("3. idle connections: 12 addresses × 80 sockets; a trickling body", flush=True)
    server = Server(binary, data, "--body-timeout", "3")
    try:
        tok = token(server.url, client, secret)
        idle = []
        for a in range(12):
            for _ in range(80):
                s = socket.socket()
                s.bind((f"127.0.1.{a + 1}", 0))
                try:
                    s.connect(("127.0.0.1", server.port))
                    idle.append(s)
                except OSError:
                    s.close()
        time.sleep(0.5)
        refused = 0
        for s in idle:
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    refused += 1
            except BlockingIOError:
                pass
            except OSError:
                refused += 1
        prober = Prober(server.root, 0.02)
        prober.start()
        time.sleep(5)
        prober.stop()
        print(f"  {len(idle)} connected, {refused} closed by the per-address limit (64)", flush=True)
        check("idle: /healthz p99", round(pct(prober.latencies, 99), 1), 50, pct(prober.latencies, 99) <= 50, " ms")
        check("idle: connections refused past 64 per address", refused, 12 * 16, refused >= 12 * 16)
        for s in idle:
            s.close()
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall((f"POST /v1/vps/map/query-form HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n"
                   f"Content-Type: {single_type}\r\nContent-Length: {len(single)}\r\n\r\n").encode())
        t = time.monotonic()
        closed_after = None
        for i in range(len(single)):
            try:
                s.send(single[i:i + 1])
            except OSError:
                closed_after = time.monotonic() - t
                break
            time.sleep(0.5)
            if time.monotonic() - t > 10:
                break
        s.close()
        check("trickle: cut off after the 3 s body deadline", round(closed_after or 99, 1), 5,
              closed_after is not None and closed_after <= 5, " s")
    finally:
        server.stop()

    # 4. Pathological queries.
    print("4. pathological queries: 8 × 6 frames of 1280 × 1280, engine timeout 1 s; a PNG chunk bomb", flush=True)
    server = Server(binary, data, "--engine-timeout", "1")
    try:
        tok = token(server.url, client, secret)
        bk = big_set["frames"][0]["intrinsics"]
        parts = [("mapCode", None, b"MAP_HOSTILE00001"), ("fx", None, str(bk["fx"]).encode()),
                 ("fy", None, str(bk["fy"]).encode()), ("px", None, str(bk["cx"]).encode()),
                 ("py", None, str(bk["cy"]).encode()), ("width", None, b"1280"), ("height", None, b"1280"),
                 ("isRightHanded", None, b"true")]
        for n, f in enumerate(big_set["frames"], start=1):
            p, q = f["arPose"]["position"], f["arPose"]["rotation"]
            pose = json.dumps({"x": p[0], "y": p[1], "z": p[2], "qx": q[0], "qy": q[1], "qz": q[2], "qw": q[3]})
            parts += [(f"image{n}", f"{n}.jpg", open(f"{big}/{f['image']}", "rb").read()),
                      (f"image{n}_data", None, pose.encode())]
        heavy, heavy_type = multipart(parts)
        prober = Prober(server.root, 0.02)
        prober.start()
        results = [None] * 8

        def fire(i):
            results[i] = request(server.url + "/vps/map/multi-image-query", "POST", heavy,
                                 {"Authorization": "Bearer " + tok, "Content-Type": heavy_type})

        threads = [threading.Thread(target=fire, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # The chunk bomb: 1000 zTXt chunks of 8 MB of zeros each before the pixels.
        bomb = png_gray(640, 480, lambda y: bytes((x * 7 + y * 3) & 0xFF for x in range(640)),
                        ztxt_bomb(1000, 8 << 20))
        bomb_body, bomb_type = multipart(fields + [("queryImage", "q.png", bomb)])
        status_b, _, _, seconds_b = request(server.url + "/vps/map/query-form", "POST", bomb_body,
                                            {"Authorization": "Bearer " + tok, "Content-Type": bomb_type})
        prober.stop()
        _, _, metrics, _ = request(server.root + "/metrics")
        overrun = next((float(l.split()[1]) for l in metrics.decode().splitlines()
                        if l.startswith("vps_engine_overrun_seconds_max")), float("nan"))
        busy = [r for r in results if r[0] == 503 and b"SERVER_BUSY" in r[2]]
        print(f"  answers: {[r[0] for r in results]} in {[round(r[3], 2) for r in results]} s; "
              f"bomb ({len(bomb) >> 10} KiB): {status_b} in {seconds_b:.2f} s", flush=True)
        check("pathological: /healthz p99", round(pct(prober.latencies, 99), 1), 50,
              pct(prober.latencies, 99) <= 50, " ms")
        check("pathological: excess answered 503 busy", len(busy), ">= 1", len(busy) >= 1)
        worst = max((r[3] for r in busy), default=0) * 1000
        check("pathological: 503 busy within", round(worst, 1), 100, busy and worst <= 100, " ms")
        check("pathological: Retry-After on every 503", all("Retry-After" in r[1] for r in results if r[0] == 503),
              True, all("Retry-After" in r[1] for r in results if r[0] == 503))
        check("pathological: engine ran past a deadline by at most", round(overrun * 1000, 1), 100,
              overrun <= 0.1, " ms")
        check("pathological: PNG chunk bomb answered within", round(seconds_b, 2), 2, status_b != 0 and seconds_b <= 2,
              " s")
    finally:
        server.stop()

    # SIGTERM while pathological queries run (default 60 s engine timeout): stops within 2 s.
    server = Server(binary, data)
    tok = token(server.url, client, secret)
    busy_threads = [threading.Thread(target=lambda: request(
        server.url + "/vps/map/multi-image-query", "POST", heavy,
        {"Authorization": "Bearer " + tok, "Content-Type": heavy_type})) for _ in range(4)]
    for t in busy_threads:
        t.start()
    time.sleep(0.4)
    start = time.monotonic()
    server.stop()
    stopped = time.monotonic() - start
    for t in busy_threads:
        t.join()
    check("SIGTERM during queries: server stopped within", round(stopped, 2), 2, stopped <= 2, " s")

    # 5. kill -9 during an upload and during a build; 6. the CLI during a build.
    print("5. kill -9 during an upload and during a build", flush=True)
    upload_parts = [("name", None, b"scan"), ("captures.json", "captures.json", open(f"{caps}/captures.json", "rb").read())]
    for f in dataset["frames"]:
        upload_parts.append((f["image"], os.path.basename(f["image"]), open(f"{caps}/{f['image']}", "rb").read()))

    def upload_body(code):
        return multipart([("code", None, code.encode())] + upload_parts)

    def status_of(url, tok, code):
        s, _, body, _ = request(f"{url}/vps/map/{code}", headers={"Authorization": "Bearer " + tok})
        return json.loads(body).get("status") if s == 200 else f"http {s}"

    def wait_built(url, tok, code, limit=300):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            st = status_of(url, tok, code)
            if st != "processing":
                return st
            time.sleep(0.5)
        return "processing"

    server = Server(binary, data)
    tok = token(server.url, client, secret)
    body, ctype = upload_body("MAP_KILLUPLOAD01")
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall((f"POST /v1/vps/map/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n"
               f"Content-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body[: len(body) // 2])
    time.sleep(0.3)
    server.kill9()
    s.close()
    server = Server(binary, data)
    tok = token(server.url, client, secret)
    st = status_of(server.url, tok, "MAP_KILLUPLOAD01")
    leftovers = os.listdir(f"{data}/staging") if os.path.isdir(f"{data}/staging") else []
    check("kill during upload: no map, nothing staged", f"{st}, {len(leftovers)} staged", "http 404, 0 staged",
          st == "http 404" and not leftovers)
    body, ctype = upload_body("MAP_KILLBUILD001")
    accepted = request(server.url + "/vps/map/upload", "POST", body, {"Authorization": "Bearer " + tok, "Content-Type": ctype})
    time.sleep(0.5)
    server.kill9()
    server = Server(binary, data)
    tok = token(server.url, client, secret)
    st = wait_built(server.url, tok, "MAP_KILLBUILD001")
    check("kill during build: the map ends", st, "active", accepted[0] == 202 and st == "active")

    print("6. every CLI command during a server-side build", flush=True)
    body, ctype = upload_body("MAP_CLIDURING001")
    accepted = request(server.url + "/vps/map/upload", "POST", body, {"Authorization": "Bearer " + tok, "Content-Type": ctype})
    cli = {
        "clients list": ([binary, "clients", "list", "--data", data], 0),
        "clients create": ([binary, "clients", "create", "--name", "during", "--data", data], 0),
        "map list": ([binary, "map", "list", "--data", data], 0),
        "map info": ([binary, "map", "info", "MAP_HOSTILE00001", "--data", data], 0),
        "clients revoke": ([binary, "clients", "revoke", "client_0000000000000000", "--data", data], 1),
        "map export-mesh": ([binary, "map", "export-mesh", "MAP_HOSTILE00001", "--out", f"{work}/mesh.ply", "--data", data],
                            None),
        "map build (refused)": ([binary, "map", "build", "--captures", caps, "--data", data], 1),
        "serve (refused)": ([binary, "serve", "--port", "0", "--data", data], 1),
        "localize": ([binary, "localize", "--map", "MAP_HOSTILE00001", "--image", f"{caps}/{frame['image']}",
                      "--intrinsics", f"{k['fx']},{k['fy']},{k['cx']},{k['cy']}", "--data", data], None),
    }
    codes = {}
    for name, (command, expected) in cli.items():
        r = subprocess.run(command, capture_output=True, text=True, timeout=120)
        codes[name] = r.returncode
        if expected is not None and r.returncode != expected:
            print(f"  {name}: exit {r.returncode}: {r.stderr.strip()[:200]}", flush=True)
    st = wait_built(server.url, tok, "MAP_CLIDURING001")
    print(f"  exit codes: {codes}", flush=True)
    check("CLI during a build: the build ends", st, "active", accepted[0] == 202 and st == "active")
    check("CLI during a build: commands answer as expected",
          all(codes[n] == e for n, (_, e) in cli.items() if e is not None), True,
          all(codes[n] == e for n, (_, e) in cli.items() if e is not None))
    start = time.monotonic()
    server.stop()
    check("SIGTERM: server stopped within", round(time.monotonic() - start, 2), 2, time.monotonic() - start <= 2, " s")

    # 7. schemathesis.
    if args.st and os.path.exists(args.st):
        print("7. schemathesis --checks all", flush=True)
        fresh = f"{work}/st-data"
        shutil.copytree(data, fresh, ignore=shutil.ignore_patterns("lock"))
        server = Server(binary, fresh)
        try:
            env = dict(os.environ, HOSTILE_TOKEN=token(server.url, client, secret), HOSTILE_QUERY_JPEG=f"{caps}/{frame['image']}",
                       HOSTILE_MAP_FILE=f"{data}/maps/MAP_HOSTILE00001.vpsmap",
                       PYTHONPATH=os.path.dirname(os.path.abspath(__file__)), SCHEMATHESIS_HOOKS="schemathesis_hooks")
            here = os.path.dirname(os.path.abspath(__file__))
            r = subprocess.run([args.st, "--config-file", f"{here}/schemathesis.toml", "run", server.url + "/openapi.json",
                                "--checks", "all"], env=env, capture_output=True, text=True, timeout=1200)
            summary = [l for l in r.stdout.splitlines() if l.startswith("=") and " in " in l]
            print("  " + (summary[-1] if summary else r.stdout[-500:]), flush=True)
            if r.returncode != 0:
                print(r.stdout[-4000:], flush=True)
            check("schemathesis --checks all: exit status", r.returncode, 0, r.returncode == 0)
        finally:
            server.stop()
    else:
        print("7. schemathesis: skipped (no --st)", flush=True)

    json.dump({"cpu": cpu, "cores": os.cpu_count(), "results": RESULTS}, open(f"{work}/hostile.json", "w"), indent=1)
    print(f"hostile suite: {len(RESULTS) - len(FAILED)} passed, {len(FAILED)} failed", flush=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
