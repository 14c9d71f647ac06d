#!/usr/bin/env python3
"""Issue 14 weaknesses, one request each, against a given `multiset` binary: run it with a build from
before the hardening and with one after to see each answer change (docs/SECURITY.md, "Before and after").
Usage: before_after.py MULTISET_BINARY"""
import sys, os, subprocess, socket, json, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import Server, request, token, multipart
binary = sys.argv[1]
work = f"/tmp/repro-{os.path.basename(binary)}"
shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
data = f"{work}/data"
out = subprocess.run([binary, "clients", "create", "--name", "r", "--data", data], capture_output=True, text=True).stdout
cid = out.split("client id:")[1].split()[0]; sec = out.split("client secret:")[1].split()[0]
s = Server(binary, data)
tok = token(s.url, cid, sec)
auth = {"Authorization": "Bearer " + tok}
def raw(head, wait=3):
    c = socket.create_connection(("127.0.0.1", s.port)); c.settimeout(wait)
    c.sendall(head.encode())
    try: r = c.recv(200).decode(errors="replace").split("\r\n")[0]
    except socket.timeout: r = "(no answer within %ss)" % wait
    c.close(); return r
print("GET /v1/vps/map%00        ->", raw(f"GET /v1/vps/map%00 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n\r\n"))
print("GET //v1//vps//map        ->", raw(f"GET //v1//vps//map HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n\r\n"))
print("OPTIONS /v1/vps/map       ->", raw(f"OPTIONS /v1/vps/map HTTP/1.1\r\nHost: x\r\n\r\n"))
print("PUT /v1/vps/map           ->", raw(f"PUT /v1/vps/map HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\nContent-Length: 0\r\n\r\n"))
print("POST 1 TiB, no body sent  ->", raw(f"POST /v1/vps/map/query-form HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\nContent-Length: {1<<40}\r\n\r\n"))
print("POST 40 MB anonymous      ->", raw(f"POST /v1/vps/map/query-form HTTP/1.1\r\nHost: x\r\nContent-Length: {40<<20}\r\n\r\n"))
body = json.dumps({"mapCode": "MAP_NONE00000001", "fx": 500, "fy": 500, "px": 320, "py": 240, "width": 640, "height": 480, "hintPosition": [1,2,3], "hintRadius": 1, "queryImage": "/9j/"}).encode()
st, _, b, _ = request(s.url + "/vps/map/query", "POST", body, dict(auth, **{"Content-Type": "application/json"}))
print('JSON "hintRadius":1        ->', st, b[:80])
caps = {"format": "multiset-captures", "version": 1, "device": {"model": "t", "name": "t"}, "frames": [{"id": "f0", "image": "../../../../etc/x.jpg", "timestamp": 0, "intrinsics": {"fx": 500, "fy": 500, "cx": 320, "cy": 240, "width": 640, "height": 480}, "arPose": {"position": [0,0,0], "rotation": [0,0,0,1]}, "trackingState": "normal"}]}
mb, mt = multipart([("name", None, b"evil"), ("captures.json", "captures.json", json.dumps(caps).encode())])
st, _, b, _ = request(s.url + "/vps/map/upload", "POST", mb, dict(auth, **{"Content-Type": mt}))
print("upload ../../ image path  ->", st, b[:90])
mb, mt = multipart([("mapCode", None, b"MAP_NONE00000001"), ("fx", None, b"1e308"), ("fy", None, b"500"), ("px", None, b"320"), ("py", None, b"240"), ("width", None, b"640"), ("height", None, b"480"), ("queryImage", "q.jpg", b"\xff\xd8")])
st, _, b, _ = request(s.url + "/vps/map/query-form", "POST", mb, dict(auth, **{"Content-Type": mt}))
print("fx=1e308                  ->", st, b[:90])
print("permissions jwt.key/store ->", oct(os.stat(f"{data}/jwt.key").st_mode & 0o777), oct(os.stat(f"{data}/store.sqlite").st_mode & 0o777), oct(os.stat(data).st_mode & 0o777))
r = subprocess.run([binary, "map", "build", "--captures", "/nonexistent", "--data", data], capture_output=True, text=True)
print("map build beside serve    ->", r.returncode, r.stderr.strip()[:110])
s.stop()
