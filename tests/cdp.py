"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
JSON messages ending in a NUL byte on file descriptors 3 (to the browser) and 4 (from it).
Standard library only; Debian's Chromium, nothing downloaded."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

# A page's scripts (the calculator loads every scenario module from Blob URLs) took over 20 s to
# become ready on this 2-core machine at a load average of 20; a wait that long still fails fast
# enough when a page never becomes ready, and no test reads time.
PAGE_READY_TIMEOUT = 180.0

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars"]


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or a script threw."""


class Browser:
    """One browser and its pages (``tab()``); the first tab's ``navigate``/``evaluate`` are the browser's own."""

    def __init__(self, width: int = 1280, height: int = 1600) -> None:
        self.profile = tempfile.mkdtemp(prefix="chromium-cdp-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # bash moves the child's ends to 3 and 4 (no preexec_fn: the test server runs in a thread)
        closing = " ".join(f"{fd}<&-" for fd in (to_browser, from_browser) if fd not in (3, 4))
        wiring = f'exec "$@" 3<&{to_browser} 4>&{from_browser} {closing}'
        self.process = subprocess.Popen(
            [shutil.which("bash") or "/bin/bash", "-c", wiring, "bash", shutil.which("chromium") or "chromium", *FLAGS, "--remote-debugging-pipe",
             f"--window-size={width},{height}", f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(to_browser, from_browser), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_browser, from_browser):
            os.close(fd)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.size = (width, height)
        self.first = self.tab()
        self.session = self.first.session

    def tab(self) -> Tab:
        """A new page, loading in its own renderer process (so two pages load in parallel)."""
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        tab = Tab(self, self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"])
        tab.command("Page.enable")
        tab.command("Emulation.setDeviceMetricsOverride", width=self.size[0], height=self.size[1],
                    deviceScaleFactor=1, mobile=False)
        return tab

    def _send(self, message: dict[str, Any]) -> None:
        os.write(self._write, json.dumps(message).encode() + b"\0")

    def _receive(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def command(self, method: str, session: bool | str = False, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session if session is True else session
        self._send(message)
        while True:
            answer = self._receive(timeout)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def navigate(self, url: str, ready: str, timeout: float = PAGE_READY_TIMEOUT) -> None:
        self.first.navigate(url, ready, timeout)

    def evaluate(self, expression: str) -> Any:
        return self.first.evaluate(expression)

    def screenshot(self, path: Any) -> None:
        self.first.screenshot(path)

    def close(self) -> None:
        try:
            self.command("Browser.close", timeout=5)
        except (BrowserError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._read, self._write):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """One page of a ``Browser``."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.command(method, session=self.session, **params)

    def start(self, url: str) -> None:
        """Begin loading ``url`` (returns at once; ``wait`` for it)."""
        self.url = url
        self.command("Page.navigate", url=url)

    def wait(self, ready: str, timeout: float = PAGE_READY_TIMEOUT) -> None:
        """Until the expression ``ready`` is true in the page."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"Boolean({ready})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.url}: {ready} never became true")
            time.sleep(0.02)

    def navigate(self, url: str, ready: str, timeout: float = PAGE_READY_TIMEOUT) -> None:
        self.start(url)
        self.wait(ready, timeout)

    def evaluate(self, expression: str) -> Any:
        answer = self.command("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or details.get("text"))
        return answer["result"].get("value")

    def screenshot(self, path: Any) -> None:
        data = self.command("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
