"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
no driver, no WebSocket library, no open port. Used by the map and review tests to open the
HTML map, take screenshots, watch network requests and run Mermaid's own parser.

Chromium comes from Debian's packages (`apt-get install chromium`, done by .ci/run when it is
missing). Without it the tests skip with the reason, unless KUEUELINT_REQUIRE_BROWSER is set
(as .ci/run sets it after installing), when they fail instead.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--window-size=1280,900")
MERMAID_JS = Path(os.environ.get("KUEUELINT_MERMAID_JS") or Path(
    os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kueuelint-test" / "npm"
    / "node_modules" / "mermaid" / "dist" / "mermaid.min.js")


def unavailable(reason: str):
    if os.environ.get("KUEUELINT_REQUIRE_BROWSER"):
        pytest.fail(f"{reason} (KUEUELINT_REQUIRE_BROWSER is set)")
    pytest.skip(reason)


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    unavailable("Chromium is not installed (apt-get install chromium)")
    raise AssertionError("unreachable")


class Browser:
    """One headless Chromium with one page; ``requests`` lists every URL the page asked for."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="kueuelint-chromium-")
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        self.process = subprocess.Popen(
            [chromium_path(), *FLAGS, f"--user-data-dir={self.profile}"],
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(to_browser, 3), os.dup2(from_browser, 4)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.dialogs: list[str] = []        # messages of alert(), confirm() and prompt()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Network.enable", session=True)

    def call(self, method: str, params: dict | None = None, session: bool = False, timeout: float = 60) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        found = json.loads(message)
        if found.get("method") == "Page.javascriptDialogOpening":
            # an alert() would block the page, and every later call, until answered
            self.dialogs.append(found["params"].get("message", ""))
            answer = {"id": -len(self.dialogs), "method": "Page.handleJavaScriptDialog",     # ids no call waits for
                      "params": {"accept": False}, "sessionId": self.session}
            os.write(self._commands, json.dumps(answer).encode() + b"\0")
        return found

    def open(self, url: str, timeout: float = 60) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(deadline))

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "script failed"))
        return result["result"].get("value")

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=True)
        path.write_bytes(base64.b64decode(data["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)
        shutil.rmtree(self.profile, ignore_errors=True)


def mermaid_parser(browser: Browser, workdir: Path):
    """A function text -> None or Mermaid's parse error, from Mermaid's own parser (the npm
    package's browser build, loaded from disk into the page)."""
    if not MERMAID_JS.is_file():
        unavailable(f"Mermaid's browser build is not at {MERMAID_JS} (.ci/run installs it from npm)")
    page = workdir / "mermaid.html"
    page.write_text(f'<!doctype html><script src="{MERMAID_JS.as_uri()}"></script>')
    browser.open(page.as_uri())

    def parse(text: str) -> str | None:
        outcome = browser.evaluate(
            f"mermaid.parse({json.dumps(text)}).then(() => null, e => String(e.message || e))")
        return outcome

    return parse
