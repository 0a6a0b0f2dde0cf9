"""The built documentation site in a real headless browser (Chromium, DevTools protocol).

Runs after the site is built (``python -m sphinx -W -b html docs docs/_build/html``;
``.ci/run`` does both): ``pytest -m docs tests/docs``. The site is served from
127.0.0.1 and each page is loaded in Debian's ``chromium``; the test fails on a console
error or an uncaught exception, a resource that did not load, an image that did not
decode, or an internal link (page or ``#anchor``) that leads nowhere. Skipped, with the
reason, where the site is not built or no Chromium is installed.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs

SITE = Path(os.environ.get("ALLOCKIT_DOCS_HTML", Path(__file__).parents[2] / "docs/_build/html"))
PAGES = [
    "index.html",
    "api/generated/allockit.instances.datasets.html",
    "cli.html",
    "auto_examples/plot_exact_vs_heuristics.html",
    "auto_examples/plot_drfh_google.html",
    "auto_examples/plot_bank_failures.html",
]
#: The flags that work on this kind of machine (no network, root, no GPU).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-allow-origins=*",
]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no access log on stderr
        pass


@pytest.fixture(scope="module")
def server():
    if not (SITE / "index.html").is_file():
        pytest.skip(f"the site is not built: python -m sphinx -W -b html docs {SITE}")
    handler = functools.partial(_Quiet, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class DevTools:
    """A minimal Chrome DevTools protocol client over one page's websocket."""

    def __init__(self, ws_url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event: str, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        for i, message in enumerate(self.events):
            if message.get("method") == event:
                return self.events.pop(i)
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            message = json.loads(self.ws.recv())
            if message.get("method") == event:
                return message
            self.events.append(message)
        raise TimeoutError(event)

    def drain(self, seconds: float) -> None:
        """Collect the events that arrive within ``seconds`` (late console messages)."""
        import websocket

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                break

    def close(self) -> None:
        self.ws.close()


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("websocket", reason="websocket-client (the docs extra) not installed")
    binary = _chromium()
    if binary is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="allockit-chromium-")
    proc = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{binary} did not start (exit code {proc.poll()})")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            targets = [t for t in json.load(r) if t.get("type") == "page"]
        tools = DevTools(targets[0]["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            tools.call(f"{domain}.enable")
        yield tools
        tools.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


_IMAGES_JS = """
(async () => {
  const images = Array.from(document.images);
  images.forEach(img => { img.loading = "eager"; });
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  return images.filter(img => !(img.complete && img.naturalWidth > 0))
               .map(img => img.currentSrc || img.src);
})()
"""
_LINKS_JS = "Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"


def _problems(events: list[dict]) -> list[str]:
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            found.append(f"console.{params['type']}: {args}")
        elif method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            found.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            found.append(f"failed to load: {params.get('errorText')} ({params.get('type')})")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            found.append(f"HTTP {params['response']['status']}: {params['response']['url']}")
    return found


def _visit(browser: DevTools, url: str) -> tuple[list[str], list[str], list[str]]:
    browser.events.clear()
    browser.call("Page.navigate", url=url)
    browser.wait_for("Page.loadEventFired")
    broken = browser.call("Runtime.evaluate", expression=_IMAGES_JS, awaitPromise=True,
                          returnByValue=True)["result"]["value"]
    links = browser.call("Runtime.evaluate", expression=_LINKS_JS,
                         returnByValue=True)["result"]["value"]
    browser.drain(0.5)
    return _problems(browser.events), broken, links


@functools.cache
def _fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read().decode("utf-8", "replace")
            return response.status, body
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def _broken_links(links: list[str], origin: str) -> list[str]:
    broken = []
    for link in sorted(set(links)):
        if not link.startswith(origin):
            continue  # an external link: not followed (no network here)
        page, _, anchor = link.partition("#")
        status, body = _fetch(page)
        if status != 200:
            broken.append(f"{link}: HTTP {status}")
        elif anchor and not re.search(
            rf"""id=["']{re.escape(urllib.parse.unquote(anchor))}["']""", body
        ):
            broken.append(f"{link}: no element with id {anchor!r}")
    return broken


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_with_no_error_broken_image_or_broken_link(server, browser, page):
    problems, broken_images, links = _visit(browser, server + page)
    assert not problems, f"{page}: " + "; ".join(problems)
    assert not broken_images, f"{page}: images that did not load: {broken_images}"
    assert links, f"{page}: no links at all (an empty page?)"
    broken = _broken_links(links, server)
    assert not broken, f"{page}: broken internal links: " + "; ".join(broken)


def test_gallery_pages_show_their_figures(server, browser):
    for page in PAGES:
        if page.startswith("auto_examples/plot_"):
            browser.call("Page.navigate", url=server + page)
            browser.wait_for("Page.loadEventFired")
            count = browser.call(
                "Runtime.evaluate",
                expression="document.querySelectorAll('img.sphx-glr-single-img').length",
                returnByValue=True,
            )["result"]["value"]
            assert count >= 1, f"{page}: no figure"


def test_the_checker_sees_a_broken_image_and_a_broken_link(server, browser, tmp_path):
    """The check must be able to fail: a page with a missing image and a dead link."""
    bad = SITE / "_browser_test_bad.html"
    bad.write_text(
        '<html><body><img src="no-such.png"><a href="no-such-page.html">x</a>'
        '<a href="index.html#no-such-anchor">y</a>'
        "<script>console.error('deliberate')</script></body></html>"
    )
    try:
        problems, broken_images, links = _visit(browser, server + bad.name)
        assert any("deliberate" in p for p in problems)
        assert any("HTTP 404" in p for p in problems)
        assert broken_images and broken_images[0].endswith("no-such.png")
        broken = _broken_links(links, server)
        assert any("no-such-page.html: HTTP 404" in b for b in broken)
        assert any("no-such-anchor" in b for b in broken)
    finally:
        bad.unlink()
