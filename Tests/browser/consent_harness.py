"""The browser tests' harness: a real permission-server and headless Chromium.

It builds nothing: it runs the server binary it is given (PERMISSION_SERVER, default
.build/debug/permission-server) on 127.0.0.1 port 0 with a fresh SQLite file in a temporary
directory, a bootstrap admin key and plain-HTTP consent cookies, reads the port from the
server's "listening on" log line, drives the API with urllib, and opens consent links in
headless Chromium (Debian's chromium and chromium-driver) through Selenium. The server is
stopped by its PID when the run ends, failed or not.

Every wait is bounded: process start, HTTP calls, page loads and WebDriverWait conditions all
have deadlines, and conditions are polled rather than slept on.
"""

import atexit
import datetime
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")

# Generous deadlines: two shared cores, a debug build, other work on the machine.
START_TIMEOUT = 60.0
HTTP_TIMEOUT = 15.0
WAIT = 15.0
# What the link's page has in its head: it goes on to the prompts page by itself.
GOES_ON = '<meta http-equiv="refresh" content="0; url=/consent/">'
LIVE_UPDATE_DEADLINE = 10.0

PHONE = (390, 844)
DESKTOP = (1280, 800)
SIZES = {"phone": PHONE, "desktop": DESKTOP}

# The DOM contract's labels (notes: the pages' contract; SPEC §4 and §10).
LABELS = {
    "en": {
        "allowOnce": "Allow Once",
        "allowWhileUsing": "Allow While Using App",
        "deny": "Don't Allow",
        "keepWhileUsing": "Keep Only While Using",
        "changeToAlways": "Change to Always Allow",
        "selectItems": "Select Photos…",
        "allowFull": "Allow Full Access",
        "allow": "Allow",
        "keepAlways": "Keep Always",
        "changeToWhileUsing": "Change to Only While Using",
    },
    "de": {
        "allowOnce": "Einmal erlauben",
        "allowWhileUsing": "Beim Verwenden der App erlauben",
        "deny": "Nicht erlauben",
        "keepWhileUsing": "Nur beim Verwenden beibehalten",
        "changeToAlways": "Zu „Immer erlauben“ ändern",
        "selectItems": "Fotos auswählen …",
        "allowFull": "Vollzugriff erlauben",
        "allow": "Erlauben",
        "keepAlways": "„Immer“ beibehalten",
        "changeToWhileUsing": "Zu „Beim Verwenden der App“ ändern",
    },
}
# The tracking prompt's refusal keeps iOS's own wording (App Tracking Transparency).
TRACKING_DENY = {"en": "Ask App Not to Track", "de": "App bitten, kein Tracking durchzuführen"}


def label(language, option, service):
    """The label of `option` on a prompt for `service` in `language`."""
    if service == "tracking" and option == "deny":
        return TRACKING_DENY[language]
    if service == "contacts" and option == "selectItems":
        return {"en": "Select Contacts…", "de": "Kontakte auswählen …"}[language]
    return LABELS[language][option]


SETTING_VALUES = {
    "location": ["never", "askNextTime", "whileUsing", "always"],
    "photos": ["none", "addOnly", "limited", "full"],
}
ON_OFF = ["off", "on"]
SETTING_LABELS = {
    "en": {"never": "Never", "askNextTime": "Ask Next Time", "whileUsing": "While Using the App",
           "always": "Always", "none": "None", "addOnly": "Add Photos Only", "limited": "Limited Access",
           "full": "Full Access", "off": "Off", "on": "On"},
    "de": {"never": "Nie", "askNextTime": "Nächstes Mal fragen", "whileUsing": "Beim Verwenden der App",
           "always": "Immer", "none": "Keine", "addOnly": "Nur Fotos hinzufügen",
           "limited": "Eingeschränkter Zugriff", "full": "Voller Zugriff", "off": "Aus", "on": "Ein"},
}

# Every purpose key the tests' apps declare, with English and German strings.
PURPOSES = {
    "NSLocationWhenInUseUsageDescription": (
        "Your location is used to show nearby stops.",
        "Dein Standort wird verwendet, um Haltestellen in der Nähe zu zeigen."),
    "NSLocationAlwaysAndWhenInUseUsageDescription": (
        "Your location is used to alert you when your stop is near.",
        "Dein Standort wird verwendet, um dich zu warnen, wenn deine Haltestelle naht."),
    "NSPhotoLibraryUsageDescription": (
        "Attach photos to trip reports.",
        "Fotos an Reiseberichte anhängen."),
    "NSPhotoLibraryAddUsageDescription": (
        "Save your tickets to your photos.",
        "Deine Fahrkarten in deinen Fotos sichern."),
    "NSCameraUsageDescription": (
        "The camera scans tickets.",
        "Die Kamera scannt Fahrkarten."),
    "NSMicrophoneUsageDescription": (
        "Voice search for stations.",
        "Sprachsuche nach Haltestellen."),
    "NSUserTrackingUsageDescription": (
        "Your data is used to show you relevant offers.",
        "Deine Daten werden verwendet, um dir passende Angebote zu zeigen."),
}
PURPOSE_KEY_FOR = {
    ("location", "whenInUse"): "NSLocationWhenInUseUsageDescription",
    ("location", "always"): "NSLocationWhenInUseUsageDescription",  # iOS 13: the request shows this one
    ("location", "upgrade"): "NSLocationAlwaysAndWhenInUseUsageDescription",
    ("photos", "full"): "NSPhotoLibraryUsageDescription",
    ("photos", "limited"): "NSPhotoLibraryUsageDescription",
    ("camera", "full"): "NSCameraUsageDescription",
    ("microphone", "full"): "NSMicrophoneUsageDescription",
    ("tracking", "full"): "NSUserTrackingUsageDescription",
}


class HarnessError(Exception):
    """The harness itself could not do its part (server, browser)."""


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # http.client.HTTPMessage: get_all() for repeated fields
        self.body = body

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class Server:
    """One permission-server process with its own temporary database."""

    def __init__(self, binary, extra_arguments=()):
        if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
            raise HarnessError(
                f"no server binary at {binary}: build it first (swift build), or set PERMISSION_SERVER")
        self.binary = binary
        self.extra_arguments = list(extra_arguments)
        self.directory = tempfile.mkdtemp(prefix="consent-browser-")
        self.admin_key = "pk_" + secrets.token_hex(8) + "_" + secrets.token_urlsafe(32)
        self.log_path = os.path.join(self.directory, "server.log")
        self.process = None
        self.port = None

    def start(self):
        env = dict(os.environ)
        env["PERMISSION_BOOTSTRAP_ADMIN_KEY"] = self.admin_key
        for name in list(env):
            # Only this harness configures the server (a PERMISSION_* of the caller's shell
            # must not point it at another database).
            if name.startswith("PERMISSION_") and name != "PERMISSION_BOOTSTRAP_ADMIN_KEY":
                del env[name]
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", "0",
             "--database", os.path.join(self.directory, "permissions.sqlite"),
             "--consent-cookie-secure", "false", "--log-level", "info"] + self.extra_arguments,
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        pattern = re.compile(rb"listening on 127\.0\.0\.1:(\d+)")
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                match = pattern.search(f.read())
            if match:
                self.port = int(match.group(1))
                return self
            if self.process.poll() is not None:
                raise HarnessError(f"the server exited with {self.process.returncode}:\n{self.log_tail()}")
            time.sleep(0.05)
        self.stop()
        raise HarnessError(f"the server did not log 'listening on' within {START_TIMEOUT:.0f}s:\n{self.log_tail()}")

    def stop(self):
        """Stops the server by its PID: SIGTERM, then SIGKILL after a grace period."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if os.environ.get("KEEP_BROWSER_TEST_DIR") != "1":
            shutil.rmtree(self.directory, ignore_errors=True)

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def url(self, path):
        return self.base + path

    # -- HTTP --------------------------------------------------------------------------------

    def http(self, method, path, body=None, headers=None, admin=True):
        """One request, redirects not followed; any status is returned, never raised."""
        fields = dict(headers or {})
        data = None
        if body is not None:
            if isinstance(body, (bytes, str)):
                data = body.encode("utf-8") if isinstance(body, str) else body
            else:
                data = json.dumps(body).encode("utf-8")
                fields.setdefault("Content-Type", "application/json")
        if admin:
            fields.setdefault("Authorization", f"Bearer {self.admin_key}")
        request = urllib.request.Request(self.url(path), data=data, method=method, headers=fields)
        try:
            with _opener.open(request, timeout=HTTP_TIMEOUT) as response:
                return Response(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, error.headers, error.read())

    def api(self, method, path, body=None, expect=(200, 201, 202, 204)):
        response = self.http(method, path, body)
        if response.status not in expect:
            raise AssertionError(f"{method} {path}: {response.status} {response.text}")
        return response.json() if response.body else None

    # -- The API calls the tests make ---------------------------------------------------------

    def put_app(self, app, name, purposes=None, german=True, localized=None):
        """Registers `app` named `name`; `purposes` defaults to every key of PURPOSES in English,
        with the German strings as `localizedPurposeStrings.de` unless `german` is false."""
        base = purposes or {key: texts[0] for key, texts in PURPOSES.items()}
        body = {"name": name, "purposeStrings": base}
        if localized is not None:
            body["localizedPurposeStrings"] = localized
        elif german:
            body["localizedPurposeStrings"] = {
                "de": {key: PURPOSES[key][1] for key in base if key in PURPOSES}}
        return self.api("PUT", f"/v1/apps/{app}", body)

    def request(self, user, app, service, level):
        return self.api(
            "POST", f"/v1/users/{user}/apps/{app}/authorizations/{service}/request", {"level": level})

    def prompt_for(self, user, app, service, level):
        """Requests access and returns the pending prompt it made (asserted to be there)."""
        answer = self.request(user, app, service, level)
        if "prompt" not in answer:
            raise AssertionError(f"no prompt for {user} {app} {service} {level}: {answer}")
        return answer["prompt"]

    def decide(self, prompt_id, choice):
        return self.api("POST", f"/v1/prompts/{prompt_id}/decision", {"choice": choice})

    def upgrade_prompt(self, user, app):
        """The system's upgrade prompt: Always requested, Allow While Using App (provisional
        Always), then background location use."""
        first = self.prompt_for(user, app, "location", "always")
        self.decide(first["id"], "allowWhileUsing")
        answer = self.api("POST", f"/v1/users/{user}/apps/{app}/lifecycle", {"event": "backgroundLocationUsed"})
        if not answer.get("prompt"):
            raise AssertionError(f"no upgrade prompt for {user} {app}: {answer}")
        return answer["prompt"]

    def authorization(self, user, app, service):
        return self.api("GET", f"/v1/users/{user}/apps/{app}/authorizations/{service}")

    def set_authorization(self, user, app, service, status, level=None):
        body = {"status": status}
        if level:
            body["level"] = level
        return self.api("PUT", f"/v1/users/{user}/apps/{app}/authorizations/{service}", body)

    def prompt(self, prompt_id):
        return self.api("GET", f"/v1/prompts/{prompt_id}")

    def pending(self, user):
        return self.api("GET", f"/v1/users/{user}/prompts?state=pending")["items"]

    def settings(self, user):
        return self.api("GET", f"/v1/users/{user}/settings")

    def audit(self, user, action=None):
        query = {"user": user, "limit": "1000"}
        if action:
            query["action"] = action
        return self.api("GET", "/v1/audit?" + urllib.parse.urlencode(query))["items"]

    def consent_link(self, user):
        """A fresh consent link for `user`: (session id, absolute URL)."""
        answer = self.api("POST", f"/v1/users/{user}/consent-sessions", expect=(201,))
        url = answer["url"]
        if url.startswith("/"):
            url = self.base + url
        return answer["id"], url

    def session_cookie(self, user):
        """Exchanges a fresh link with urllib (no browser): the cookie pair and the answer (a
        page that goes on to /consent/ by itself)."""
        _, url = self.consent_link(user)
        response = self.http("GET", url[len(self.base):], admin=False)
        if response.status != 200 or GOES_ON not in response.text:
            raise AssertionError(f"link exchange: {response.status} {response.text}")
        set_cookie = response.headers.get("Set-Cookie")
        return set_cookie.split(";", 1)[0], response


_server = None
_server_lock = threading.Lock()


def server():
    """The run's one server, started on first use and stopped at exit."""
    global _server
    with _server_lock:
        if _server is None:
            binary = os.environ.get("PERMISSION_SERVER", os.path.join(REPO, ".build/debug/permission-server"))
            started = Server(binary)
            atexit.register(started.stop)
            _server = started.start()
        return _server


_other_servers = {}


def server_with(*arguments):
    """A server of its own started with more `serve` flags (e.g. short location alert
    intervals), for the tests that need them, so that the run's shared server stays as the
    other tests expect it; one per set of flags, started on first use and stopped at exit."""
    with _server_lock:
        if arguments not in _other_servers:
            binary = os.environ.get("PERMISSION_SERVER", os.path.join(REPO, ".build/debug/permission-server"))
            started = Server(binary, arguments)
            atexit.register(started.stop)
            _other_servers[arguments] = started.start()
        return _other_servers[arguments]


def stop_server():
    global _server
    with _server_lock:
        if _server is not None:
            _server.stop()
            _server = None
        for started in _other_servers.values():
            started.stop()
        _other_servers.clear()


def instant(text):
    """A page's machine-readable time (RFC 3339, `Z` or an offset) as a timezone-aware datetime."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


_counter = [0]


def unique(prefix):
    """An id unique in the run (users, apps)."""
    _counter[0] += 1
    return f"{prefix}{_counter[0]:03d}"


# -- Browsers ---------------------------------------------------------------------------------

def require_selenium():
    try:
        import selenium  # noqa: F401
    except ImportError as error:
        raise HarnessError("Python's selenium is missing: run scripts/setup.sh") from error
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise HarnessError(f"{path} is missing: run scripts/setup.sh (Debian chromium, chromium-driver)")


def make_driver(language="en", javascript=True):
    """Headless Chromium through Debian's chromedriver (never Selenium Manager's downloads)."""
    require_selenium()
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync", "--password-store=basic",
                     "--hide-scrollbars", "--force-color-profile=srgb", "--font-render-hinting=none",
                     f"--lang={language}", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(argument)
    prefs = {"intl.accept_languages": language}
    if not javascript:
        prefs["profile.managed_default_content_settings.javascript"] = 2
    options.add_experimental_option("prefs", prefs)
    options.set_capability("pageLoadStrategy", "normal")
    service = Service(executable_path=CHROMEDRIVER, log_output=subprocess.DEVNULL)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    driver.implicitly_wait(0)
    return driver


_drivers = {}


def driver(language="en", javascript=True):
    """The run's browser of that language (and JavaScript on or off), started on first use."""
    key = (language, javascript)
    if key not in _drivers:
        made = make_driver(language, javascript)
        _drivers[key] = made
        atexit.register(_quit, made)
    return _drivers[key]


def _quit(made):
    try:
        made.quit()
    except Exception:  # noqa: BLE001 - best effort at exit
        pass


def quit_drivers():
    for made in list(_drivers.values()):
        _quit(made)
    _drivers.clear()


def set_viewport(browser, size, scale=1):
    """The page's viewport exactly `size` (CSS px, `scale` device pixels each); a phone width
    also emulates a mobile device, so the page's viewport meta decides the layout width as on
    a phone."""
    width, height = size
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": scale, "mobile": width < 600})


def set_color_scheme(browser, scheme):
    """Emulates `prefers-color-scheme: scheme` ("dark" or "light") through the DevTools
    protocol, kept across navigations; None gives the browser's own back."""
    features = [{"name": "prefers-color-scheme", "value": scheme}] if scheme else []
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})


def javascript_runs(browser):
    """Whether the browser runs a page's own scripts (a data: page that sets its title)."""
    browser.get("data:text/html,<title>off</title><script>document.title='on'</script>")
    return browser.title == "on"


def wait(browser, condition, timeout=WAIT, message=""):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(browser, timeout, poll_frequency=0.1).until(condition, message)


def poll(check, timeout=WAIT, interval=0.1, message="condition"):
    """Calls `check` until it returns a truthy value (returned) or the deadline passes."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = check()
            if last:
                return last
        except AssertionError:
            pass
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {message} (last: {last!r})")
        time.sleep(interval)


def open_link(browser, url):
    """Opens a consent link after forgetting the browser's earlier session cookies, and waits
    for the page it ends on (the link's page goes on to /consent/ by itself)."""
    browser.get(url.split("/consent/", 1)[0] + "/consent/static/style.css")
    browser.delete_all_cookies()
    browser.get(url)
    wait_for_landing(browser)


def wait_for_landing(browser):
    """Waits until the page is loaded and is not one that goes on by itself."""
    wait(browser, lambda b: b.execute_script(
        "return document.readyState === 'complete' && !document.querySelector('meta[http-equiv=refresh]')"))


def load(browser, path_or_url):
    url = path_or_url if path_or_url.startswith("http") else server().url(path_or_url)
    browser.get(url)
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")


def console_errors(browser):
    try:
        return [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    except Exception:  # noqa: BLE001 - not every driver keeps the log
        return []


def axe_violations(browser):
    """axe-core's violations on the current page (the whole result list)."""
    from axe_selenium_python import Axe
    axe = Axe(browser)
    axe.inject()
    results = axe.run()
    return results["violations"]


def describe_violations(violations):
    lines = []
    for violation in violations:
        lines.append(f"  [{violation.get('impact')}] {violation['id']}: {violation['help']}")
        for node in violation.get("nodes", []):
            lines.append(f"      {' '.join(node.get('target', []))}: {node.get('failureSummary', '').strip()}")
    return "\n".join(lines)


def say(text):
    print(text, file=sys.stderr, flush=True)
