"""The consent pages' DOM contract as helpers: what the tests find and press on each page.

Selectors are the contract's ids, classes, names and values (prompts: section#prompts,
div.alert[data-prompt-id][data-kind], h2.alert-title, p.alert-message, form.alert-actions with
button[name=choice]; settings: form#location-services, section.service[data-service],
form.app-setting[data-app] with input[name=value] radios and button.save; history:
ol#history > li[data-seq], a#history-older; every page: nav a#nav-prompts/#nav-settings/
#nav-history, form#logout, main#main with one h1, forms with a hidden input csrf).
"""

import unittest

from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.by import By

import consent_harness as h


def css(browser, selector):
    return browser.find_elements(By.CSS_SELECTOR, selector)


def one(browser, selector):
    found = css(browser, selector)
    if len(found) != 1:
        raise AssertionError(f"expected exactly one {selector!r} on {browser.current_url}, found {len(found)}")
    return found[0]


def h1(browser):
    return one(browser, "h1").text.strip()


# The invisible marks the pages put around an app's name in a sentence (FIRST STRONG ISOLATE,
# POP DIRECTIONAL ISOLATE: the name cannot reorder the words around it).
ISOLATES = str.maketrans("", "", "\u2068\u2069")


def seen(text):
    """`text` (an element's text, an accessible name) without the isolates around app names:
    what a reader sees."""
    return text.translate(ISOLATES)


def path(browser):
    return "/" + browser.current_url.split("/", 3)[3]


def alerts(browser):
    return css(browser, "section#prompts div.alert")


def alert(browser, prompt_id):
    return one(browser, f'section#prompts div.alert[data-prompt-id="{prompt_id}"]')


def choices(element):
    """The alert's buttons as (value, label) in document order."""
    return [(b.get_attribute("value"), b.text.strip())
            for b in element.find_elements(By.CSS_SELECTOR, "form.alert-actions button[name=choice]")]


def button_descriptions(browser):
    """Each button of the page as the browser's accessibility tree has it: (name, description),
    in document order, computed by Chromium itself (DevTools' Accessibility domain)."""
    root = browser.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    found = browser.execute_cdp_cmd("Accessibility.queryAXTree", {"nodeId": root, "role": "button"})["nodes"]

    def value(node, key):
        return (node.get(key) or {}).get("value", "")
    return [(value(node, "name"), value(node, "description")) for node in found if not node.get("ignored")]


def choose(browser, prompt_id, choice):
    """Presses the option `choice` of the prompt and waits for the page after the 303."""
    button = alert(browser, prompt_id).find_element(
        By.CSS_SELECTOR, f'form.alert-actions button[name=choice][value="{choice}"]')
    navigates(browser, button.click)


MARK = "window.__consentTestOldPage = true"
NEW_PAGE = "return window.__consentTestOldPage !== true && document.readyState === 'complete'"


def navigates(browser, action, timeout=h.WAIT):
    """Does `action` (a click, a key) and waits until it has replaced the page and the new one
    is loaded. The old page is marked with a window property the new one lacks: element
    staleness is racy while a document is being replaced (chromedriver then answers "node does
    not belong to the document"), so a script error here only means "not yet"."""
    browser.execute_script(MARK)
    action()
    wait_new_page(browser, timeout)


def wait_new_page(browser, timeout=h.WAIT):
    def replaced(b):
        try:
            return b.execute_script(NEW_PAGE)
        except WebDriverException:
            return False
    h.wait(browser, replaced, timeout=timeout, message="the page to be replaced after a submission")


def is_new_page(browser):
    try:
        return browser.execute_script(NEW_PAGE)
    except WebDriverException:
        return False


def flash(browser):
    found = css(browser, "#flash")
    return found[0] if found else None


def setting_form(browser, service, app):
    return one(browser, f'section.service[data-service="{service}"] form.app-setting[data-app="{app}"]')


def radio(form, value):
    return form.find_element(By.CSS_SELECTOR, f'input[type=radio][name=value][value="{value}"]')


def checked_value(form):
    checked = [r.get_attribute("value") for r in form.find_elements(By.CSS_SELECTOR, "input[type=radio][name=value]")
               if r.is_selected()]
    if len(checked) != 1:
        raise AssertionError(f"expected one checked radio in {form.get_attribute('action')}, found {checked}")
    return checked[0]


def label_for(browser, control):
    control_id = control.get_attribute("id")
    if not control_id:
        raise AssertionError(f"radio {control.get_attribute('value')!r} has no id, so no <label for>")
    labels = css(browser, f'label[for="{control_id}"]')
    if len(labels) != 1:
        raise AssertionError(f"expected one <label for={control_id!r}>, found {len(labels)}")
    return labels[0]


def csrf_token(browser):
    tokens = {e.get_attribute("value") for e in css(browser, 'form input[type=hidden][name="csrf"]')}
    if len(tokens) != 1:
        raise AssertionError(f"expected one CSRF token among the page's forms, found {len(tokens)}")
    return tokens.pop()


def cookie(browser):
    found = [c for c in browser.get_cookies() if c["name"] == "permission_consent"]
    return found[0] if found else None




class PagesTestCase(unittest.TestCase):
    """A test of the consent pages: the run's server and English browser, a desktop viewport
    at the start of every test, and the server's log tail when a test fails."""

    language = "en"
    javascript = True

    @classmethod
    def setUpClass(cls):
        cls.server = h.server()
        cls.browser = h.driver(cls.language, cls.javascript)

    def setUp(self):
        h.set_viewport(self.browser, h.DESKTOP)

    def run(self, result=None):
        before = len(result.failures) + len(result.errors) if result is not None else 0
        outcome = super().run(result)
        if result is not None and len(result.failures) + len(result.errors) > before:
            try:
                h.say(f"--- {self.id()} failed on {self.browser.current_url}; server log tail:\n"
                      + self.server.log_tail(15))
            except Exception:  # noqa: BLE001 - only diagnostics
                pass
        return outcome

    # Helpers the tests share.
    def open_session(self, user, browser=None):
        """Opens a fresh consent link of `user`; returns the session id."""
        browser = browser or self.browser
        session_id, url = self.server.consent_link(user)
        h.open_link(browser, url)
        return session_id

    def assert_prompts_page(self, browser=None):
        browser = browser or self.browser
        self.assertEqual(path(browser), "/consent/")
        one(browser, "section#prompts")

    def assert_common_layout(self, browser=None, language="en"):
        """What every page has by the contract."""
        browser = browser or self.browser
        self.assertEqual(browser.find_element(By.TAG_NAME, "html").get_attribute("lang"), language)
        viewport = one(browser, 'meta[name="viewport"]').get_attribute("content").replace(" ", "")
        self.assertEqual(viewport, "width=device-width,initial-scale=1")
        styles = [e.get_attribute("href") for e in css(browser, 'link[rel="stylesheet"]')]
        self.assertEqual(styles, [self.server.url("/consent/static/style.css")])
        scripts = css(browser, "script")
        self.assertEqual([s.get_attribute("src") for s in scripts], [self.server.url("/consent/static/app.js")])
        self.assertTrue(all(s.get_attribute("defer") is not None for s in scripts))
        self.assertEqual(css(browser, "[style]"), [], "no style= attributes (CSP)")
        for nav_id, target in (("nav-prompts", "/consent/"), ("nav-settings", "/consent/settings"),
                               ("nav-history", "/consent/history")):
            link = one(browser, f"nav a#{nav_id}")
            self.assertEqual(link.get_attribute("href"), self.server.url(target))
        logout = one(browser, "form#logout")
        self.assertEqual(logout.get_attribute("method"), "post")
        self.assertEqual(logout.get_attribute("action"), self.server.url("/consent/logout"))
        one(browser, "main#main")
        self.assertEqual(len(css(browser, "main#main h1")), 1)
        for form in css(browser, "form"):
            self.assertEqual(form.get_attribute("method"), "post", form.get_attribute("outerHTML")[:200])
            self.assertEqual(len(form.find_elements(By.CSS_SELECTOR, 'input[type=hidden][name="csrf"]')), 1)


def exists(browser, selector):
    try:
        browser.find_element(By.CSS_SELECTOR, selector)
        return True
    except NoSuchElementException:
        return False
