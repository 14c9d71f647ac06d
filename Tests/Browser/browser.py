#!/usr/bin/env python3
"""The web console in a real browser (`make test-browser`): headless Chromium from Debian driven by
Selenium, against a `multiset serve` this script starts on loopback over a temporary data directory.

Seeds two accounts: A (an admin client) with a map built from a rendered capture uploaded through the
API and a 100,000-point synthetic map, and B with a map of its own. Then checks, in the browser: a bad
sign-in shows the error; A's maps are listed; the viewer draws (pixels other than the background) and
its frames per second on the 100k-point map (software GL) are >= 20; clicking a keyframe shows its
image; a query sent with curl appears in the live list within 2 s; the page keeps no cookies and no
storage; the admin lists and creates clients; B sees none of A's maps or queries, in the page and
through every console route. Screenshots go to WORK/screenshots. Prints one line per check and a
summary; exit status 1 when a check fails."""

import argparse
import base64
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ACCOUNT_B = "0000000000000000000000b2"
HALL = "MAP_HALL00000001"
HALL_B = "MAP_BBBB00000001"
FPS_MINIMUM = 20.0
LIVE_SECONDS = 2.0

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok)))
    print(f"{'PASS' if ok else 'FAIL'}  {name}{'  ' + detail if detail else ''}", flush=True)
    return ok


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kw).stdout


def credentials(text):
    cid = re.search(r"client id:\s+(\S+)", text).group(1)
    secret = re.search(r"client secret:\s+(\S+)", text).group(1)
    return cid, secret


class API:
    def __init__(self, base):
        self.base = base

    def call(self, method, path, token=None, body=None, headers=None):
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def token(self, cid, secret):
        basic = base64.b64encode(f"{cid}:{secret}".encode()).decode()
        status, body, _ = self.call("POST", "/v1/m2m/token", headers={"Authorization": f"Basic {basic}"})
        assert status == 200, body
        return json.loads(body)["token"]


def multipart(fields, files):
    boundary = "----console-test-boundary"
    out = bytearray()
    for k, v in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
    for name, data in files:
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def start_server(multiset, data):
    proc = subprocess.Popen([multiset, "serve", "--port", "0", "--data", data], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/v1", line)
    if not m:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{m.group(1)}"


# WebGL on SwiftShader (software GL); the page composited by Skia on the CPU rather than through
# SwiftShader too, which costs a frame more than the drawing itself.
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader",
                  "--enable-unsafe-swiftshader", "--disable-gpu-compositing", "--ignore-gpu-blocklist", "--window-size=1280,1000",
                  "--disable-background-timer-throttling", "--disable-renderer-backgrounding"]


def browser(chromedriver):
    o = Options()
    for flag in CHROMIUM_FLAGS + os.environ.get("BROWSER_FLAGS", "").split():
        o.add_argument(flag)
    o.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    return webdriver.Chrome(service=Service(chromedriver), options=o)


def sign_in(driver, base, cid, secret):
    driver.get(base + "/console")
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "signin-form").is_displayed())
    driver.find_element(By.ID, "client-id").clear()
    driver.find_element(By.ID, "client-id").send_keys(cid)
    driver.find_element(By.ID, "client-secret").clear()
    driver.find_element(By.ID, "client-secret").send_keys(secret)
    driver.find_element(By.ID, "signin-button").click()


def map_rows(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#maps tbody tr')].map(r => r.dataset.mapCode || '')")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--multiset", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--docs", default=None, help="copy the viewer screenshot to this path")
    args = ap.parse_args()
    multiset = os.path.abspath(args.multiset)
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="console-browser-")).resolve()
    if work.exists():
        shutil.rmtree(work)
    shots = work / "screenshots"
    shots.mkdir(parents=True)
    data = work / "data"
    started = time.time()

    # Seed before the server owns the directory.
    run(multiset, "synth", "--venue", "room", "--frames", "24", "--seed", "3", "--out", work / "capture")
    admin = credentials(run(multiset, "clients", "create", "--name", "operator", "--admin", "--data", data))
    other = credentials(run(multiset, "clients", "create", "--name", "tenant-b", "--account", ACCOUNT_B,
                            "--data", data))
    run(multiset, "synth-cloud", "--points", "100000", "--code", HALL, "--name", "hall 100k", "--data", data)
    run(multiset, "synth-cloud", "--points", "5000", "--code", HALL_B, "--name", "b's hall", "--account",
        ACCOUNT_B, "--seed", "9", "--data", data)

    server, base = start_server(multiset, data)
    driver = None
    try:
        api = API(base)
        token_a = api.token(*admin)
        token_b = api.token(*other)
        capture = work / "capture"
        files = [("captures.json", (capture / "captures.json").read_bytes())]
        for f in sorted((capture / "images").iterdir()):
            files.append((f"images/{f.name}", f.read_bytes()))
        body, ctype = multipart([("name", "rendered room")], files)
        status, answer, _ = api.call("POST", "/v1/vps/map/upload", token_a, body, {"Content-Type": ctype})
        assert status == 202, answer
        room = json.loads(answer)
        room_code, room_id = room["mapCode"], room["_id"]
        deadline = time.time() + 300
        while time.time() < deadline:
            details = json.loads(api.call("GET", f"/v1/vps/map/{room_id}", token_a)[1])
            if details["status"] != "processing":
                break
            time.sleep(1)
        check("the uploaded capture builds", details["status"] == "active", f"{room_code} {details['status']}")

        # The page and its headers.
        status, _, headers = api.call("GET", "/console")
        csp = headers.get("Content-Security-Policy", "")
        check("console page has a strict CSP", status == 200 and "script-src 'self'" in csp
              and "default-src 'none'" in csp and "unsafe-inline" not in csp and "Set-Cookie" not in headers, csp)

        driver = browser(args.chromedriver)
        # A bad sign-in shows the error.
        sign_in(driver, base, admin[0], "not-the-secret")
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "signin-error").is_displayed())
        text = driver.find_element(By.ID, "signin-error").text
        check("a bad sign-in shows the error", "wrong" in text or "failed" in text.lower(), repr(text))
        driver.save_screenshot(str(shots / "signin-error.png"))

        # Sign in; A's maps.
        sign_in(driver, base, *admin)
        WebDriverWait(driver, 20).until(lambda d: set(map_rows(d)) >= {room_code, HALL})
        rows = map_rows(driver)
        check("the map list shows the account's maps", set(rows) == {room_code, HALL}, str(rows))
        driver.save_screenshot(str(shots / "maps.png"))
        check("no cookies, no web storage", driver.get_cookies() == [] and driver.execute_script(
            "return document.cookie === '' && localStorage.length === 0 && sessionStorage.length === 0"))

        # The viewer on the 100k-point map.
        driver.find_element(By.CSS_SELECTOR, f"#maps tbody tr[data-map-code='{HALL}']").click()
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return document.getElementById('viewer-canvas').dataset.ready === 'true' "
                                       "&& window.__console.selected.details.mapCode === arguments[0]", HALL))
        mesh = driver.execute_script("const m = window.__console.viewer.layers.mesh; return m ? m.count : 0")
        check("the viewer draws the map's mesh", mesh > 0, f"{mesh // 2} triangle edges")
        lit = driver.execute_script("return window.__console.viewer.litPixels()")
        total = driver.execute_script("const c = document.getElementById('viewer-canvas'); return c.width * c.height")
        check("the viewer draws the map", lit > 0.02 * total, f"{lit} of {total} pixels differ from the background")
        runs = {}
        for mode in ["gl", "splat"]:
            b = driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "window.__console.viewer.benchmark(4000, arguments[0]).then(done)", mode)
            runs[mode] = b
            print(f"viewer ({mode} points): {b['points']} points on a {b['width']}x{b['height']} canvas, "
                  f"{b['frames']} frames in {b['ms']:.0f} ms: {b['fps']:.1f} frames per second; one draw waited "
                  f"for alone: {b['syncMs']:.1f} ms ({1000 / b['syncMs']:.1f} fps) {b.get('splatMs') or ''}", flush=True)
        chosen = runs["gl"]["chosen"]
        bench = runs[chosen]
        print(f"viewer: renderer {bench['renderer']!r}; the viewer draws points as '{chosen}' here: "
              f"{bench['fps']:.1f} fps", flush=True)
        check(f"viewer >= {FPS_MINIMUM:.0f} fps on 100k points", bench["points"] == 100000
              and bench["fps"] >= FPS_MINIMUM,
              f"{bench['fps']:.1f} fps ({chosen})")

        def click_keyframe():
            spot = driver.execute_script("""
                const v = window.__console.viewer, c = v.canvas, r = c.getBoundingClientRect();
                for (const k of v.keyframes) {
                  const s = v.project(k.camera.position);
                  if (s && s[0] > 20 && s[1] > 20 && s[0] < c.width - 20 && s[1] < c.height - 20)
                    return [s[0] * r.width / c.width - r.width / 2, s[1] * r.height / c.height - r.height / 2, k.id];
                }
                return null""")
            if spot is None:
                return None
            canvas = driver.find_element(By.ID, "viewer-canvas")
            ActionChains(driver).move_to_element_with_offset(canvas, int(spot[0]), int(spot[1])).click().perform()
            WebDriverWait(driver, 20).until(lambda d: d.execute_script(
                "const f = document.getElementById('keyframe'), i = document.getElementById('keyframe-image');"
                "return !f.hidden && i.complete && i.naturalWidth > 0"))
            return spot[2]

        picked = click_keyframe()
        check("clicking a keyframe shows its image", picked is not None, f"keyframe {picked}")
        driver.save_screenshot(str(shots / "viewer-100k.png"))

        # The rendered room, with kept keyframe photos.
        driver.find_element(By.CSS_SELECTOR, f"#maps tbody tr[data-map-code='{room_code}']").click()
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return window.__console.selected.details.mapCode === arguments[0] && "
                                       "window.__console.viewer.pointCount > 0", room_code))
        picked = click_keyframe()
        kind = driver.execute_script("return document.getElementById('keyframe-caption').textContent")
        check("a built map's keyframe shows its photo", picked is not None and "no image kept" not in kind, kind)

        # Live queries: curl, then the list.
        driver.find_element(By.CSS_SELECTOR, "nav button[data-view='live']").click()
        intr = json.loads((capture / "captures.json").read_text())["frames"][7]["intrinsics"]
        query = subprocess.run(
            ["curl", "-s", "-H", f"Authorization: Bearer {token_a}", "-F", f"mapCode={room_code}",
             "-F", f"fx={intr['fx']}", "-F", f"fy={intr['fy']}", "-F", f"px={intr['cx']}", "-F", f"py={intr['cy']}",
             "-F", f"width={intr['width']}", "-F", f"height={intr['height']}",
             "-F", f"queryImage=@{capture / 'images/frame_000007.jpg'};type=image/jpeg",
             base + "/v1/vps/map/query-form"], capture_output=True, text=True, check=True)
        answered = time.time()
        found = json.loads(query.stdout).get("poseFound")
        seen = None
        while time.time() - answered < 10:
            if driver.execute_script(
                    "return !!document.querySelector(`#live-list tr[data-target='${arguments[0]}']`)", room_code):
                seen = time.time() - answered
                break
            time.sleep(0.05)
        check(f"a curl query appears in the live list within {LIVE_SECONDS:.0f} s",
              seen is not None and seen <= LIVE_SECONDS,
              f"{seen:.2f} s after curl's answer (pose found: {found})" if seen is not None else "never")
        driver.save_screenshot(str(shots / "live.png"))

        # The query's camera in the room's viewer.
        driver.find_element(By.CSS_SELECTOR, "nav button[data-view='maps']").click()
        driver.find_element(By.CSS_SELECTOR, f"#maps tbody tr[data-map-code='{room_code}']").click()
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(
            "return window.__console.viewer.queries.length > 0"))
        check("the query is drawn as a camera in the viewer", True)
        click_keyframe()
        driver.execute_script("document.getElementById('details').scrollIntoView()")
        driver.save_screenshot(str(shots / "viewer-room.png"))

        # Clients (admin).
        driver.find_element(By.CSS_SELECTOR, "nav button[data-view='clients']").click()
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return document.querySelectorAll('#clients tbody tr').length > 0"))
        ids = driver.execute_script(
            "return [...document.querySelectorAll('#clients tbody tr')].map(r => r.dataset.client)")
        check("the admin sees only its account's clients", ids == [admin[0]], str(ids))
        driver.find_element(By.ID, "client-name").send_keys("kiosk")
        driver.find_element(By.CSS_SELECTOR, "#client-form button").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "client-secret-once").is_displayed())
        check("the admin creates a client", "client secret" in driver.find_element(By.ID, "client-secret-once").text)

        # Upload a capture folder as a .zip through the page: two frames are too few, so the build fails
        # and the details show the builder's reason; then delete it from the list.
        thin = work / "thin.zip"
        dataset = json.loads((capture / "captures.json").read_text())
        dataset["frames"] = dataset["frames"][:2]
        with zipfile.ZipFile(thin, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("thin/captures.json", json.dumps(dataset))
            for f in dataset["frames"]:
                z.write(capture / f["image"], f"thin/{f['image']}")
        driver.find_element(By.CSS_SELECTOR, "nav button[data-view='maps']").click()
        driver.find_element(By.ID, "upload-name").send_keys("two frames")
        driver.find_element(By.ID, "upload-file").send_keys(str(thin))
        driver.find_element(By.CSS_SELECTOR, "#upload-form button").click()
        WebDriverWait(driver, 30).until(lambda d: "Accepted" in d.find_element(By.ID, "upload-status").text)
        WebDriverWait(driver, 120).until(lambda d: d.execute_script(
            "const s = window.__console.selected; return s && s.details.mapName === 'two frames' && "
            "s.scene.status === 'failed'"))
        reason = driver.execute_script(
            "const dt = [...document.querySelectorAll('#details-facts dt')].find(e => e.textContent === 'Build failed');"
            "return dt ? dt.nextElementSibling.textContent : ''")
        check("a zipped capture uploads from the page; a failed build shows the builder's reason", reason, reason)
        driver.save_screenshot(str(shots / "build-failed.png"))
        failed_code = driver.execute_script("return window.__console.selected.details.mapCode")
        driver.find_element(By.CSS_SELECTOR, f"#maps tbody tr[data-map-code='{failed_code}'] button.danger").click()
        WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
        WebDriverWait(driver, 20).until(lambda d: failed_code not in map_rows(d) and len(map_rows(d)) == 2)
        check("a map is deleted from the page", failed_code not in map_rows(driver), str(map_rows(driver)))

        # Account B: nothing of A, in the page and through every console route.
        driver.get("about:blank")
        sign_in(driver, base, *other)
        WebDriverWait(driver, 20).until(lambda d: map_rows(d) and all(map_rows(d)))
        time.sleep(0.5)
        rows_b = map_rows(driver)
        live_b = driver.execute_script("return document.querySelectorAll('#live-list tr').length")
        check("account B sees only its own map and no queries", rows_b == [HALL_B] and live_b == 0,
              f"maps {rows_b}, {live_b} queries")
        leaks = []
        for key in [room_code, room_id, HALL]:
            for path in [f"/v1/console/maps/{key}/scene", f"/v1/console/maps/{key}/points",
                         f"/v1/console/maps/{key}/mesh", f"/v1/console/maps/{key}/keyframes/0/image",
                         f"/v1/vps/map/{key}"]:
                status, body, _ = api.call("GET", path, token_b)
                if status != 404:
                    leaks.append(f"{path}: {status}")
        for path in ["/v1/console/queries", "/v1/console/usage"]:
            status, body, _ = api.call("GET", path, token_b)
            if status != 200 or room_code.encode() in body or HALL.encode() in body:
                leaks.append(f"{path}: {status} {body[:80]!r}")
        status, body, _ = api.call("GET", "/v1/console/queries/stream", token_b, headers={"Last-Event-ID": "0"})
        if b"event: query" in body:
            leaks.append("stream delivered a query")
        status, _, _ = api.call("GET", "/v1/console/clients", token_b)
        if status != 403:
            leaks.append(f"clients without admin: {status}")
        check("no console route leaks account A to account B", not leaks, "; ".join(leaks))
    except Exception as e:
        check(f"the suite ran to its end ({type(e).__name__})", False, str(e).strip()[:300])
        if driver:
            driver.save_screenshot(str(shots / "failure.png"))
            print("page state:", driver.execute_script(
                "const s = window.__console && window.__console.selected;"
                "return JSON.stringify({selected: s && {name: s.details.mapName, status: s.scene.status,"
                " failure: s.scene.failure}, upload: document.getElementById('upload-status').textContent,"
                " error: document.getElementById('error').textContent})"), flush=True)
    finally:
        if driver:
            driver.quit()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()

    if args.docs:
        shutil.copy(shots / "viewer-room.png", args.docs)
    failed = [n for n, ok in results if not ok]
    print(f"browser: {len(results) - len(failed)} passed, {len(failed)} failed in {time.time() - started:.0f} s; "
          f"screenshots in {shots}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
