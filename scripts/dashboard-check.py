#!/usr/bin/env python3
"""Opens the status dashboard in headless Chromium and reports what it rendered.

Used by StatusDashboardBrowserTests (make test). Python's standard library only: it
starts `chromium --headless --remote-debugging-port=0`, speaks the DevTools protocol over a
minimal WebSocket client, logs in through the page's own form with the token, waits for the
first refresh, and prints one JSON object: the figures shown (text and the API value each
keeps in data-value), the chart's bars, the table rows, and every console error or
uncaught exception. With --screenshot it saves a PNG of the page (desktop width; with
--phone-screenshot one at a phone's too).

usage: dashboard-check.py --url http://127.0.0.1:PORT --token-file <datadir>/status.token
                          [--screenshot out.png] [--phone-screenshot out.png]
"""
import argparse, base64, json, os, shutil, socket, struct, subprocess, sys, tempfile, time, urllib.request


class WebSocket:
    """RFC 6455 client, text frames only: all the DevTools protocol needs."""

    def __init__(self, url):
        assert url.startswith("ws://")
        rest = url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))

    def send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket")
            data += chunk
        return data

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):
                continue
            message += payload
            if first & 0x80:
                return message.decode()


class DevToolsError(RuntimeError):
    """An error reply to one DevTools call."""

    # What Chromium answers when the page being evaluated is replaced by a navigation (the
    # login form's submit, for one): the page is not there yet, which is not a failure.
    NAVIGATING = ("Inspected target navigated or closed", "Execution context was destroyed",
                  "Cannot find context with specified id")

    def __init__(self, method, error):
        super().__init__(f"{method}: {error}")
        self.message = str(error.get("message", "")) if isinstance(error, dict) else str(error)

    @property
    def navigating(self):
        return any(text in self.message for text in self.NAVIGATING)


class DevTools:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.receive())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise DevToolsError(method, reply["error"])
                return reply.get("result", {})
            self.events.append(reply)

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                           session)
        if "exceptionDetails" in result:
            details = json.dumps(result["exceptionDetails"])
            if any(text in details for text in DevToolsError.NAVIGATING):
                raise DevToolsError("Runtime.evaluate", {"message": details})
            raise RuntimeError(f"evaluating {expression[:60]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def pump(self, seconds):
        """Reads events for a while (console messages arrive as events)."""
        self.ws.sock.settimeout(0.2)
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.events.append(json.loads(self.ws.receive()))
            except (socket.timeout, TimeoutError):
                pass
        self.ws.sock.settimeout(30)


def wait_for(devtools, session, expression, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        try:
            if devtools.evaluate(session, expression):
                return
        except DevToolsError as error:
            if not error.navigating:
                raise
        devtools.pump(0.2)
    raise RuntimeError(f"timed out waiting for {what}")


COLLECT = r"""(() => {
  const figure = (id) => { const el = document.getElementById(id); return { text: el.textContent, value: el.dataset.value }; };
  const rows = (id) => [...document.querySelectorAll('#' + id + ' tr')].filter(tr => tr.dataset.swap)
      .map(tr => ({ swap: tr.dataset.swap, cells: [...tr.children].map(td => td.textContent) }));
  return {
    title: document.title,
    figures: Object.fromEntries(['onchain-confirmed', 'onchain-unconfirmed', 'onchain-lockable', 'lightning-balance', 'offer-range', 'exposure',
      'swaps-running', 'earned-total', 'net-total', 'live-count'].map(id => [id, figure(id)])),
    bars: [...document.querySelectorAll('#earnings-chart rect.bar')].map(r => ({ day: r.dataset.day, value: r.dataset.value,
      height: Number(r.getAttribute('height')) })),
    live: rows('live-swaps'),
    recent: rows('recent-swaps'),
    checks: [...document.querySelectorAll('#checks li')].map(li => ({ name: li.dataset.check, status: li.className })),
    attention: [...document.querySelectorAll('#attention li')].map(li => li.textContent),
    health: document.getElementById('health-state').textContent,
    updated: document.getElementById('updated').textContent,
    width: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  };
})()"""


def screenshot(devtools, session, path, width, height, mobile):
    devtools.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}, session)
    devtools.pump(1.0)
    full = devtools.evaluate(session, "document.documentElement.scrollHeight")
    devtools.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": max(height, int(full)), "deviceScaleFactor": 1, "mobile": mobile}, session)
    devtools.pump(0.5)
    shot = devtools.call("Page.captureScreenshot", {"format": "png"}, session)
    with open(path, "wb") as out:
        out.write(base64.b64decode(shot["data"]))
    return devtools.evaluate(session, "({ width: document.documentElement.scrollWidth, viewport: window.innerWidth })")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--phone-screenshot")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    token = open(args.token_file).read().strip()

    profile = tempfile.mkdtemp(prefix="pn-chromium-")
    browser = subprocess.Popen(
        [args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--remote-debugging-port=0",
         "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        end = time.time() + 60
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if browser.poll() is not None:
                raise RuntimeError(f"chromium exited with {browser.returncode}")
            if time.time() > end:
                raise RuntimeError("chromium did not open its DevTools port within 60 s")
            time.sleep(0.1)
        port, path = open(port_file).read().split("\n")[:2]
        devtools = DevTools(WebSocket(f"ws://127.0.0.1:{port}{path}"))
        target = devtools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = devtools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            devtools.call(domain, {}, session)

        # Unauthenticated, the page is the login form; the test logs in as a person would.
        devtools.call("Page.navigate", {"url": args.url + "/"}, session)
        wait_for(devtools, session, "!!document.getElementById('token')", 30, "the login form")
        devtools.evaluate(session, "document.getElementById('token').value = " + json.dumps(token)
                          + "; document.querySelector('form').submit(); true")
        wait_for(devtools, session, "document.body && document.body.dataset.loaded === 'true'", 30,
                 "the dashboard's first refresh")
        devtools.pump(0.5)
        report = devtools.evaluate(session, COLLECT)
        report["cookie_visible_to_script"] = devtools.evaluate(session, "document.cookie")
        if args.screenshot:
            report["desktop"] = screenshot(devtools, session, args.screenshot, 1280, 900, False)
        if args.phone_screenshot:
            report["phone"] = screenshot(devtools, session, args.phone_screenshot, 390, 844, True)
        devtools.pump(0.5)
        problems = []
        for event in devtools.events:
            method = event.get("method")
            params = event.get("params", {})
            if method == "Runtime.exceptionThrown":
                problems.append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:400])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                problems.append("console." + params["type"] + ": "
                                + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                problems.append("log: " + params["entry"].get("text", "") + " " + params["entry"].get("url", ""))
        report["console_errors"] = problems
        json.dump(report, sys.stdout)
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
