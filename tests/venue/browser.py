"""Debian's Chromium, headless, driven over the DevTools protocol (CDP) with a small client on websocket-client.

``with Browser() as browser:`` starts ``chromium --headless=new`` with a temporary profile and
``--remote-debugging-port=0`` (Chromium picks a free port and writes it to ``DevToolsActivePort`` in the
profile: no race for a port), attaches to its page, and in ``finally`` closes it, kills it if it lingers and
removes the profile. ``open(url)`` loads a page, ``evaluate(js)`` gives a JSON value back, ``wait_for(js)``
polls until the expression is truthy, ``screenshot(path, width, height)`` saves a PNG at that viewport size.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

TIMEOUT = 60.0  # generous: a loaded two-core machine
_PLACES = ("/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
         "--password-store=basic", "--use-mock-keychain",
         # A page in the background still runs its timers and frames: the board is watched, not looked at.
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows", "--window-size=1920,1080"]


class BrowserError(RuntimeError):
    """Chromium did not start, or a page's script threw: the message says what (with Chromium's stderr)."""


def chromium_binary() -> str | None:
    """Debian's ``chromium``, or None when it is not installed."""
    return shutil.which("chromium") or next((p for p in _PLACES if os.access(p, os.X_OK)), None)


class Browser:
    """One headless Chromium and one page in it; a context manager."""

    def __init__(self, flags: tuple[str, ...] = ()) -> None:
        self.flags = flags
        """More command-line flags (a deployed unit's, to check that they open the page)."""
        self.process: subprocess.Popen | None = None
        self._profile: tempfile.TemporaryDirectory | None = None
        self._ws: websocket.WebSocket | None = None
        self._ids = itertools.count(1)
        self.events: list[dict] = []  # CDP events as they came, e.g. Runtime.exceptionThrown
        self.port: int | None = None

    def __enter__(self) -> Browser:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr(self) -> str:
        path = self._profile and Path(self._profile.name) / "chromium.log"
        return path.read_text(errors="replace") if path and path.exists() else ""

    def start(self) -> None:
        binary = chromium_binary()
        if binary is None:
            raise BrowserError("chromium is not installed (Debian: apt-get install chromium)")
        self._profile = tempfile.TemporaryDirectory(prefix="devetka-chromium-")
        profile = Path(self._profile.name)
        with open(profile / "chromium.log", "wb") as log:
            self.process = subprocess.Popen(
                [binary, *FLAGS, *self.flags, f"--user-data-dir={profile / 'profile'}",
                 "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        active = profile / "profile" / "DevToolsActivePort"
        deadline = time.monotonic() + TIMEOUT
        while not (active.exists() and len(active.read_text().splitlines()) >= 2):
            if self.process.poll() is not None:
                raise BrowserError(f"chromium exited with status {self.process.returncode}:\n{self.stderr}")
            if time.monotonic() > deadline:
                raise BrowserError(f"chromium did not open its DevTools port within {TIMEOUT:g} s:\n{self.stderr}")
            time.sleep(0.02)
        self.port = int(active.read_text().splitlines()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=TIMEOUT) as answer:
            pages = [t for t in json.load(answer) if t["type"] == "page"]
        if not pages:
            raise BrowserError("chromium has no page to drive")
        # suppress_origin: Chromium refuses DevTools WebSockets that carry an Origin it was not told to allow.
        self._ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=TIMEOUT,
                                               suppress_origin=True)
        self.send("Page.enable")
        self.send("Runtime.enable")

    def send(self, method: str, **params: Any) -> dict:
        """One CDP command; its result, or BrowserError with the protocol's error. Events are kept in ``events``."""
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + TIMEOUT
        while True:
            self._ws.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                message = json.loads(self._ws.recv())
            except websocket.WebSocketTimeoutException:
                raise BrowserError(f"chromium did not answer {method} within {TIMEOUT:g} s") from None
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def _wait_event(self, method: str, since: int) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            if time.monotonic() > deadline:
                raise BrowserError(f"no {method} within {TIMEOUT:g} s")
            self.send("Runtime.evaluate", expression="0")  # reads the events that came meanwhile

    def open(self, url: str) -> None:
        """Load ``url`` and return once its load event fired."""
        since = len(self.events)
        result = self.send("Page.navigate", url=url)
        if result.get("errorText"):
            raise BrowserError(f"could not open {url}: {result['errorText']}")
        self._wait_event("Page.loadEventFired", since)

    def evaluate(self, expression: str) -> Any:
        """The value of a JS expression in the page (promises awaited), as JSON; BrowserError if it threw."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"{expression!r} threw: {text}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = TIMEOUT, interval: float = 0.02) -> Any:
        """Poll a JS expression until it is truthy and return its value; AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression!r} was still {value!r} after {timeout:g} s")
            time.sleep(interval)

    def exceptions(self) -> list[str]:
        """The uncaught errors the page threw so far (Runtime.exceptionThrown), in words."""
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description")
                or e["params"]["exceptionDetails"].get("text", "")
                for e in self.events if e["method"] == "Runtime.exceptionThrown"]

    def click(self, selector: str) -> None:
        """A mouse press and release at the middle of the element ``selector``, as a finger or a mouse gives it: once
        the element stands still (its box the same over two frames) and is what a finger there would touch. A page
        still laying out (an image loaded, a banner shown) moves it; a press at its old place touched something
        else (a loaded run lost a tap on a player's name that way)."""
        box = self.wait_for(f"""(async () => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element) return null;
            const box = element.getBoundingClientRect();
            if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth) {{
                element.scrollIntoView({{block: "center", inline: "center"}});  // as a finger scrolls to it first
                return null;
            }}
            const before = element.getBoundingClientRect();
            await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
            const r = element.getBoundingClientRect();
            if (r.x !== before.x || r.y !== before.y || r.width !== before.width || r.height !== before.height) {{
                return null;
            }}
            const x = r.x + r.width / 2, y = r.y + r.height / 2, touched = document.elementFromPoint(x, y);
            return touched && element.contains(touched) ? [x, y] : null;
        }})()""")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def viewport(self, width: int, height: int, *, mobile: bool = False, scale: float = 1.0) -> None:
        """Make the page's viewport ``width`` x ``height`` CSS pixels (a phone's with ``mobile``)."""
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=scale,
                  mobile=mobile)
        self.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")

    def screenshot(self, path: str | os.PathLike, width: int, height: int, *, mobile: bool = False) -> Path:
        """Save a PNG of the page at a ``width`` x ``height`` viewport and return its path."""
        self.viewport(width, height, mobile=mobile)
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the page's connection, end Chromium (SIGTERM, then SIGKILL) and remove its profile."""
        try:
            if self._ws is not None:
                self._ws.close()
        finally:
            self._ws = None
            process, self.process = self.process, None
            if process is not None and process.poll() is None:
                try:
                    os.killpg(process.pid, 15)
                    process.wait(timeout=10)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    try:
                        os.killpg(process.pid, 9)
                    except ProcessLookupError:
                        pass
                    process.wait()
            if self._profile is not None:
                self._profile.cleanup()
                self._profile = None
