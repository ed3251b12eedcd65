"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
JSON messages ending in a NUL byte on file descriptors 3 (to the browser) and 4 (from it).
Standard library only; Debian's Chromium, nothing downloaded."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars"]


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or a script threw."""


class Browser:
    """One browser, one page; ``evaluate`` runs an expression in the page and returns its value."""

    def __init__(self, width: int = 1280, height: int = 1600) -> None:
        self.profile = tempfile.mkdtemp(prefix="chromium-cdp-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # keep the child's ends clear of 3 and 4 until they are moved there
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in (to_browser, from_browser)]
        for fd in (to_browser, from_browser):
            os.close(fd)

        def wire() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [shutil.which("chromium") or "chromium", *FLAGS, "--remote-debugging-pipe", f"--window-size={width},{height}",
             f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(3, 4, *high), preexec_fn=wire, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in high:
            os.close(fd)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.command("Page.enable", session=True)
        self.command("Runtime.enable", session=True)
        self.command("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                     deviceScaleFactor=1, mobile=False)

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

    def command(self, method: str, session: bool = False, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        self._send(message)
        while True:
            answer = self._receive(timeout)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def navigate(self, url: str, ready: str, timeout: float = 20) -> None:
        """Open ``url`` and wait until the expression ``ready`` is true in the page."""
        self.command("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"Boolean({ready})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url}: {ready} never became true")
            time.sleep(0.02)

    def evaluate(self, expression: str) -> Any:
        answer = self.command("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                              awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or details.get("text"))
        return answer["result"].get("value")

    def screenshot(self, path: Any) -> None:
        data = self.command("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

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
