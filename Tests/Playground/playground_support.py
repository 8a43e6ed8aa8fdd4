"""playground_support.py - what the playground's browser tests and its latency
bench share: a copy of the examples to edit, a running `sdui dev` on it, a
headless Chromium driven by Selenium, and waits that say what they waited for.

The contract the tests hold the playground to is docs/playground.md: the
printed URL line, the page's element ids, and `window.sduiDev`.

* ``find_executable`` - the `sdui` (or `sdui-server`) to test: SDUI_EXE.
* ``copy_examples`` - Examples/ (its tokens, screens, blocks, payloads,
  flows and themes folders) copied into a fresh temporary folder, so a test
  that edits a file never touches the repository.
* ``DevServer`` - `SDUI dev DIR --port 0` as a child process; its URL is read
  from the line it prints on stderr, and everything it prints is kept for
  failure messages.
* ``new_browser`` - Debian's Chromium through Debian's chromedriver, headless,
  with explicit paths so Selenium never downloads a browser or a driver.
* ``Page`` - one playground page in that browser, with the waits and reads the
  tests and the bench need (status, screen, store, counts of `sduiDev`).
"""
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

# Selenium Manager (the driver downloader bundled with Selenium) is not used:
# both paths are given.  Offline mode makes sure it would not fetch anything
# even if some code path reached it.
os.environ.setdefault("SE_OFFLINE", "true")

from selenium import webdriver  # noqa: E402  (after SE_OFFLINE on purpose)
from selenium.common.exceptions import (  # noqa: E402
    JavascriptException, StaleElementReferenceException, TimeoutException, WebDriverException)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE_FOLDERS = ("tokens", "screens", "blocks", "payloads", "flows", "themes", "strings")
CHROMIUM = os.environ.get("SDUI_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SDUI_CHROMEDRIVER", "/usr/bin/chromedriver")
START_TIMEOUT = 60.0
SERVING = re.compile(r"^sdui dev: serving (.+) at (http://\S+/)\s*$")


class PlaygroundError(AssertionError):
    """A precondition of the tests that did not hold (no executable, no
    server line, no browser); an AssertionError so unittest reports it as a
    failure with its message."""


def find_executable():
    """The executable under test, from SDUI_EXE; absolute, and checked to be
    one."""
    exe = os.environ.get("SDUI_EXE", "")
    if not exe:
        raise PlaygroundError("SDUI_EXE is not set: give the path of sdui or sdui-server "
                              "(bash scripts/browser-tests.sh PATH/TO/sdui)")
    exe = os.path.abspath(exe)
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise PlaygroundError(f"SDUI_EXE={exe} is not an executable file")
    return exe


def copy_examples(into=None):
    """Copies the example folders the playground reads into `into` (a fresh
    temporary folder when None) and returns that folder."""
    target = into or tempfile.mkdtemp(prefix="sdui-playground-")
    for name in EXAMPLE_FOLDERS:
        source = os.path.join(REPO, "Examples", name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(target, name))
    return target


class DevServer:
    """`EXE dev DIR --port 0` as a child process.

    ``start`` waits (up to START_TIMEOUT seconds) for the line
    `sdui dev: serving DIR at http://HOST:PORT/` on stderr and keeps its URL;
    a thread goes on reading both pipes so the child never blocks on a full
    one, and ``output`` returns all it printed.  ``stop`` sends SIGTERM, then
    SIGKILL after five seconds."""

    def __init__(self, exe, folder):
        self.exe = exe
        self.folder = folder
        self.url = None
        self.served = None
        self.process = None
        self._lines = []
        self._lock = threading.Lock()
        self._stderr_lines = queue.Queue()

    def start(self):
        """Starts the server and returns its base URL (ending in `/`)."""
        self.process = subprocess.Popen(
            [self.exe, "dev", self.folder, "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        threading.Thread(target=self._pump, args=(self.process.stdout, "stdout", None), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.process.stderr, "stderr", self._stderr_lines),
                         daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self._stderr_lines.get(timeout=0.1)
            except queue.Empty:
                if self.process.poll() is not None:
                    time.sleep(0.2)  # let the pumps read what is left
                    raise PlaygroundError(
                        f"`{self.exe} dev {self.folder} --port 0` exited with status "
                        f"{self.process.returncode} before printing its URL; it printed:\n{self.output()}")
                continue
            match = SERVING.match(line)
            if match:
                self.served, self.url = match.group(1), match.group(2)
                return self.url
        self.stop()
        raise PlaygroundError(
            f"`{self.exe} dev {self.folder} --port 0` printed no line `sdui dev: serving DIR at "
            f"http://HOST:PORT/` on stderr within {START_TIMEOUT:.0f} s; it printed:\n{self.output()}")

    def _pump(self, pipe, name, lines):
        """Reads `pipe` to its end, keeping each line (and handing stderr's to
        `start` through `lines`)."""
        for raw in iter(pipe.readline, b""):
            text = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                self._lines.append(f"[{name}] {text}")
            if lines is not None:
                lines.put(text)
        pipe.close()

    def output(self, last=60):
        """The last `last` lines the server printed (both pipes, in order)."""
        with self._lock:
            return "\n".join(self._lines[-last:]) or "(nothing)"

    def alive(self):
        """Whether the server process is still running."""
        return self.process is not None and self.process.poll() is None

    def stop(self):
        """SIGTERM, then SIGKILL if it has not exited within five seconds;
        returns the exit status."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=5)


def new_browser(width=1400, height=1000):
    """A headless Chromium (Debian's /usr/bin/chromium and chromedriver, or
    SDUI_CHROMIUM / SDUI_CHROMEDRIVER); its console is kept for failure
    messages."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            raise PlaygroundError(f"{path} is missing: install {package} (bash scripts/setup.sh)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars", "--no-first-run",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as e:
        raise PlaygroundError(f"headless Chromium did not start through {CHROMEDRIVER}: {e.msg}")


# JavaScript: the number of items of a `window.sduiDev` field, whether the
# page keeps a count or an array (the contract says "renders (whole renders
# applied)" without saying which); -1 while window.sduiDev is missing.
JS_COUNT = """
const d = window.sduiDev; if (!d) return -1;
const v = d[arguments[0]];
return Array.isArray(v) ? v.length : (typeof v === 'number' ? v : -1);
"""


class Page:
    """One playground page open in `driver` from `server`, with the waits and
    reads the tests use.  Every failed wait raises an AssertionError naming
    what it waited for, the page's status, banner and console, and the
    server's last lines."""

    def __init__(self, driver, server):
        self.driver = driver
        self.server = server

    # --- opening ---------------------------------------------------------------

    def open(self, path, timeout=20):
        """Loads `path` (e.g. `view/screen/checkout`) and waits until the page
        says `connected` and a `.sdui-frame` is in `#sdui-dev-screen`."""
        self.driver.get(self.server.url + path.lstrip("/"))
        self.wait(lambda: self.text("#sdui-dev-status") == "connected",
                  f"#sdui-dev-status to read `connected` on /{path}", timeout)
        self.wait(lambda: self.count("#sdui-dev-screen .sdui-frame") > 0,
                  f"a .sdui-frame inside #sdui-dev-screen on /{path}", timeout)
        self.wait(lambda: self.sdui_count("renders") >= 1,
                  "window.sduiDev.renders to count the first render", timeout)
        return self

    # --- waits -----------------------------------------------------------------

    def wait(self, condition, what, timeout=15, interval=0.05):
        """Polls `condition` until it is truthy (returned) or `timeout`
        seconds pass (an AssertionError naming `what`).  A stale element or
        a script error while the DOM is being patched counts as not yet."""
        deadline = time.monotonic() + timeout
        last_error = None
        while True:
            try:
                value = condition()
                if value:
                    return value
            except (StaleElementReferenceException, JavascriptException) as e:
                last_error = e
            if time.monotonic() >= deadline:
                break
            time.sleep(interval)
        extra = f"\nlast error: {last_error.msg}" if last_error else ""
        raise AssertionError(f"timed out after {timeout} s waiting for {what}{extra}\n{self.describe()}")

    def describe(self):
        """The page's state for a failure message: URL, status, banner,
        store, issues, console errors and the server's last lines."""
        parts = []
        try:
            parts.append(f"page: {self.driver.current_url}")
            parts.append(f"status: {self.text('#sdui-dev-status')!r}")
            parts.append(f"banner (hidden={self.hidden('#sdui-dev-banner')}): {self.text('#sdui-dev-banner')!r}")
            parts.append(f"store: {self.text('#sdui-dev-store')[:400]!r}")
            parts.append(f"issues: {self.text('#sdui-dev-issues')[:400]!r}")
            parts.append("sduiDev: " + json.dumps(self.driver.execute_script(
                "const d = window.sduiDev; if (!d) return null;"
                "return {renders: d.renders && (d.renders.length ?? d.renders),"
                " patches: d.patches && (d.patches.length ?? d.patches),"
                " paints: d.paints && d.paints.length, lastTapLatency: d.lastTapLatency};")))
            # The examples' images live on a made-up CDN: their failed
            # loads are noise here.
            logs = [e["message"] for e in self.driver.get_log("browser")
                    if e.get("level") in ("SEVERE", "WARNING") and "ERR_NAME_NOT_RESOLVED" not in e["message"]]
            if logs:
                parts.append("console:\n  " + "\n  ".join(logs[-10:]))
        except WebDriverException as e:
            parts.append(f"(could not read the page: {e.msg})")
        parts.append(f"server alive: {self.server.alive()}; its last lines:\n{self.server.output(25)}")
        return "\n".join(parts)

    # --- reads -----------------------------------------------------------------

    def find(self, css):
        """The first element matching `css`, or None."""
        found = self.driver.find_elements(By.CSS_SELECTOR, css)
        return found[0] if found else None

    def need(self, css, timeout=5):
        """The first element matching `css`, waited for; an AssertionError
        naming `css` when the page has none."""
        return self.wait(lambda: self.find(css), f"an element {css} on the page", timeout)

    def control(self, css, timeout=5):
        """A panel control to use: waited for, and the `<details>` around it
        opened (by a click on its summary, as a person would) if closed."""
        element = self.need(css, timeout)
        while True:
            summary = self.driver.execute_script(
                "const d = arguments[0].parentElement && arguments[0].parentElement.closest('details:not([open])');"
                "return d ? d.querySelector(':scope > summary') : null;", element)
            if summary is None:
                return element
            summary.click()

    def count(self, css):
        """How many elements match `css`."""
        return len(self.driver.find_elements(By.CSS_SELECTOR, css))

    def text(self, css):
        """The trimmed textContent of the first element matching `css` ("" if
        none); textContent so a hidden element's text is read too."""
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : '';", css)

    def hidden(self, css):
        """Whether the element matching `css` is hidden: missing, carrying the
        `hidden` attribute, or not displayed."""
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); if (!e) return true;"
            "if (e.hidden) return true; const s = getComputedStyle(e);"
            "return s.display === 'none' || s.visibility === 'hidden' || e.getClientRects().length === 0;", css)

    def screen_text(self):
        """The rendered screen's text."""
        return self.text("#sdui-dev-screen")

    def screen_html(self):
        """The rendered screen's HTML."""
        return self.driver.execute_script("return document.querySelector('#sdui-dev-screen').innerHTML;")

    def store(self):
        """`pre#sdui-dev-store` parsed as JSON (None when it does not parse)."""
        try:
            return json.loads(self.text("#sdui-dev-store") or "null")
        except ValueError:
            return None

    def store_value(self, dotted):
        """The store's value at a dotted key path (`cart.promoCode`), whether
        the panel shows nested objects or flat dotted keys; None if absent."""
        store = self.store()
        if not isinstance(store, dict):
            return None
        if dotted in store:
            return store[dotted]
        value = store
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    def events(self):
        """The `data-event` names of the event log, in order."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#sdui-dev-events li')].map(e => e.dataset.event);")

    def sdui_count(self, field):
        """The count of `window.sduiDev[field]` (a number or an array's
        length); -1 while the page has no window.sduiDev."""
        return self.driver.execute_script(JS_COUNT, field)

    def screen_element(self, xpath_inside):
        """The first element of the screen matching an XPath relative to
        `#sdui-dev-screen`, or None."""
        found = self.driver.find_elements(By.XPATH, "//*[@id='sdui-dev-screen']" + xpath_inside)
        return found[0] if found else None

    def screen_button(self, label):
        """The screen's button whose text is `label` (a `<button>` or an
        element with role=button), or None."""
        return self.screen_element(
            f"//*[self::button or @role='button'][normalize-space(.)={xpath_literal(label)}]")


def xpath_literal(text):
    """`text` as an XPath string literal (XPath 1 has no escapes)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in text.split("'")) + ")"


def read_json(path):
    """A JSON file's value."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_text(path, text):
    """Writes `text` over `path` in place, in one write (as an editor that
    saves in place does)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_json(path, value):
    """Writes `value` over `path` as indented JSON."""
    write_text(path, json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def set_prop(node, predicate, key, value):
    """Sets `key` of the first `props` object (breadth first, in a token's
    tree) for which `predicate(props)` holds; returns the old value.  Raises
    when no node matches, so an example that changed shape fails loudly."""
    stack = [node]
    while stack:
        current = stack.pop(0)
        if isinstance(current, dict):
            props = current.get("props")
            if isinstance(props, dict) and predicate(props):
                old = props.get(key)
                props[key] = value
                return old
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    raise AssertionError(f"no node of the token matches the test's predicate for `{key}`")


__all__ = ["By", "DevServer", "Page", "PlaygroundError", "TimeoutException", "copy_examples",
           "find_executable", "new_browser", "read_json", "set_prop", "write_json", "write_text",
           "xpath_literal"]
