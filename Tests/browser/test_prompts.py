"""The prompts page in a real browser: every prompt kind with its title, purpose string and
exactly its options; every option chosen and checked through the API; German; the keyboard
alone; a prompt made while the page is open; the page without JavaScript."""

import time
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import consent_harness as h
import consent_pages as p

# (case, service, level of the request or "upgrade", options in order)
KINDS = {
    "location-whenInUse": ("location", "whenInUse", ["allowOnce", "allowWhileUsing", "deny"]),
    "location-always": ("location", "always", ["allowOnce", "allowWhileUsing", "deny"]),
    "upgrade": ("location", "upgrade", ["keepWhileUsing", "changeToAlways"]),
    "photos": ("photos", "full", ["selectItems", "allowFull", "deny"]),
    "camera": ("camera", "full", ["allow", "deny"]),
    "tracking": ("tracking", "full", ["allow", "deny"]),
}

# What each choice makes of the authorization (SPEC §4): the fields that must match.
RESULTS = {
    ("location-whenInUse", "allowOnce"): {"status": "authorized", "level": "whenInUse", "once": True},
    ("location-whenInUse", "allowWhileUsing"): {"status": "authorized", "level": "whenInUse", "once": False,
                                                "provisional": False},
    ("location-whenInUse", "deny"): {"status": "denied"},
    ("location-always", "allowOnce"): {"status": "authorized", "level": "whenInUse", "once": True},
    ("location-always", "allowWhileUsing"): {"status": "authorized", "level": "always", "provisional": True},
    ("location-always", "deny"): {"status": "denied"},
    ("upgrade", "keepWhileUsing"): {"status": "authorized", "level": "whenInUse", "provisional": False},
    ("upgrade", "changeToAlways"): {"status": "authorized", "level": "always", "provisional": False},
    ("photos", "selectItems"): {"status": "authorized", "level": "limited"},
    ("photos", "allowFull"): {"status": "authorized", "level": "full"},
    ("photos", "deny"): {"status": "denied"},
    ("camera", "allow"): {"status": "authorized", "level": "full"},
    ("camera", "deny"): {"status": "denied"},
    ("tracking", "allow"): {"status": "authorized", "level": "full"},
    ("tracking", "deny"): {"status": "denied"},
}


def make_prompt(server, user, app, case):
    service, level, _ = KINDS[case]
    if level == "upgrade":
        return server.upgrade_prompt(user, app)
    return server.prompt_for(user, app, service, level)


def english_title(name, service):
    return f"“{name}” Would Like to Use Your Location" if service == "location" else None


# For each word (arguments[1]) of the element's text (arguments[0]), the left edges of its
# first and last letter as drawn and the top of its line, or null when the word is not there.
WORD_EDGES = r"""
const element = arguments[0], words = arguments[1], edges = {};
const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
const nodes = [];
while (walker.nextNode()) nodes.push(walker.currentNode);
const box = (node, at) => {
  const range = document.createRange();
  range.setStart(node, at);
  range.setEnd(node, at + 1);
  return range.getBoundingClientRect();
};
for (const word of words) {
  edges[word] = null;
  for (const node of nodes) {
    const match = new RegExp("\\b" + word + "\\b").exec(node.data);
    if (match) {
      const first = box(node, match.index);
      edges[word] = [first.left, box(node, match.index + word.length - 1).left, first.top];
      break;
    }
  }
}
return edges;
"""


class PromptTests(p.PagesTestCase):

    def test_the_browser_runs_javascript(self):
        self.assertTrue(h.javascript_runs(self.browser))

    def test_every_option_of_every_prompt_kind(self):
        """One prompt per option (each its own app), all on one page: each shows its title,
        purpose string and exactly its options with the iOS labels; pressing the option makes
        the authorization SPEC §4 says, recorded with the text shown and the session as actor."""
        user = h.unique("every")
        made = []  # (case, choice, app, name, prompt)
        for index, (case, choice) in enumerate(RESULTS):
            app, name = f"com.example.every{index:02d}", f"Maps {index:02d}"
            self.server.put_app(app, name)
            made.append((case, choice, app, name, make_prompt(self.server, user, app, case)))
        session_id = self.open_session(user)
        self.assert_prompts_page()
        self.assert_common_layout()
        shown = p.alerts(self.browser)
        self.assertEqual([a.get_attribute("data-prompt-id") for a in shown], [m[4]["id"] for m in made],
                         "one alert per pending prompt, newest last")
        for case, choice, app, name, prompt in made:
            with self.subTest(case=case, choice=choice, part="shown"):
                element = p.alert(self.browser, prompt["id"])
                service, _, options = KINDS[case]
                self.assertEqual(element.get_attribute("role"), "dialog")
                self.assertEqual(element.get_attribute("data-kind"), prompt["kind"])
                self.assertEqual(element.get_attribute("aria-labelledby"), f"title-{prompt['id']}")
                title = p.seen(element.find_element(By.CSS_SELECTOR, f"h2.alert-title#title-{prompt['id']}").text)
                self.assertIn(f"“{name}”", title)
                if english_title(name, service) and case != "upgrade":
                    self.assertEqual(title, english_title(name, service))
                message = element.find_element(By.CSS_SELECTOR, "p.alert-message")
                self.assertEqual(message.text, prompt["purpose"])
                self.assertEqual(message.get_attribute("dir"), "auto")
                self.assertIn(message.get_attribute("lang"), (None, ""), "the base string has no lang")
                self.assertEqual(prompt["options"], options)
                self.assertEqual(p.choices(element), [(o, h.label("en", o, service)) for o in options])
                for button in element.find_elements(By.CSS_SELECTOR, "form.alert-actions button[name=choice]"):
                    self.assertEqual(button.get_attribute("aria-describedby"), f"title-{prompt['id']}")
                form = element.find_element(By.CSS_SELECTOR, "form.alert-actions")
                self.assertEqual(form.get_attribute("action"),
                                 self.server.url(f"/consent/prompts/{prompt['id']}/decision"))
                self.assertEqual(form.get_attribute("method"), "post")
        # What a screen reader's list of buttons offers: each option named by its label and
        # described by its alert's title, so that two alerts' "Allow" can be told apart.
        described = [(n, d) for n, d in p.button_descriptions(self.browser) if d]
        expected = []
        for case, choice, app, name, prompt in made:
            title = p.seen(p.alert(self.browser, prompt["id"]).find_element(By.CSS_SELECTOR, "h2.alert-title").text)
            expected += [(h.label("en", o, KINDS[case][0]), title) for o in KINDS[case][2]]
        self.assertEqual([(n, p.seen(d)) for n, d in described], expected)
        for case, choice, app, name, prompt in made:
            with self.subTest(case=case, choice=choice, part="decided"):
                p.choose(self.browser, prompt["id"], choice)
                # The confirmation's name leaves the address once shown, so a reload does not repeat it.
                h.wait(self.browser, lambda b: p.path(b) == "/consent/", message="the address without ?done=")
                self.assertIsNotNone(p.flash(self.browser), "a confirmation after the decision")
                self.assertEqual(p.flash(self.browser).get_attribute("role"), "status")
                self.assertEqual(p.css(self.browser, f'div.alert[data-prompt-id="{prompt["id"]}"]'), [])
                answered = self.server.prompt(prompt["id"])
                self.assertEqual((answered["state"], answered.get("choice")), ("answered", choice))
                authorization = self.server.authorization(user, app, KINDS[case][0])
                for field, value in RESULTS[(case, choice)].items():
                    self.assertEqual(authorization.get(field), value, f"{field}: {authorization}")
                if authorization["status"] == "authorized":
                    self.assertEqual(authorization["purpose"], prompt["purpose"])
                    self.assertEqual(authorization["reason"], "userConsent")
        p.one(self.browser, "p#no-prompts")  # nothing left to answer
        ids = {m[4]["id"] for m in made}
        answered = [e for e in self.server.audit(user, "prompt.answered") if e["promptId"] in ids]
        self.assertEqual(len(answered), len(made))
        for entry in answered:
            self.assertEqual(entry["actor"], {"keyId": session_id, "role": "user"})

    def test_keyboard_alone(self):
        """Tab to a decision button and press Enter; then Space on another; focus is visible."""
        user = h.unique("keys")
        app_a, app_b = h.unique("com.example.keysa"), h.unique("com.example.keysb")
        self.server.put_app(app_a, "Tickets")
        self.server.put_app(app_b, "Trails")
        first = self.server.prompt_for(user, app_a, "camera", "full")
        second = self.server.prompt_for(user, app_b, "microphone", "full")
        self.open_session(user)
        for prompt, choice, key in ((first, "allow", Keys.ENTER), (second, "deny", Keys.SPACE)):
            with self.subTest(choice=choice):
                self.tab_to(prompt["id"], choice)
                self.assert_focus_visible(self.browser.switch_to.active_element)
                self.tab_to(prompt["id"], choice)
                p.navigates(self.browser, ActionChains(self.browser).send_keys(key).perform)
                self.assertEqual(self.server.prompt(prompt["id"]).get("choice"), choice)
        self.assertEqual(self.server.authorization(user, app_a, "camera")["status"], "authorized")
        self.assertEqual(self.server.authorization(user, app_b, "microphone")["status"], "denied")

    def tab_to(self, prompt_id, choice, limit=60):
        self.browser.execute_script("document.activeElement && document.activeElement.blur()")
        find = ("var e = document.activeElement; var a = e && e.closest('div.alert');"
                "return [e ? e.tagName : null, e ? e.value : null, a ? a.dataset.promptId : null];")
        for _ in range(limit):
            ActionChains(self.browser).send_keys(Keys.TAB).perform()
            tag, value, owner = self.browser.execute_script(find)
            if tag == "BUTTON" and value == choice and owner == prompt_id:
                return
        self.fail(f"{limit} Tabs never reached the {choice} button of prompt {prompt_id}")

    def assert_focus_visible(self, element):
        style = ("var s = getComputedStyle(arguments[0]);"
                 "return [s.outlineStyle, s.outlineWidth, s.boxShadow].join('|');")
        focused = self.browser.execute_script(style, element)
        self.browser.execute_script("arguments[0].blur()", element)
        blurred = self.browser.execute_script(style, element)
        self.assertNotEqual(focused, blurred, f"focus changes nothing visible ({focused})")
        outline_style, outline_width, shadow = focused.split("|")
        self.assertTrue((outline_style != "none" and outline_width != "0px") or shadow != "none", focused)

    def test_a_new_prompt_appears_without_a_reload(self):
        user = h.unique("live")
        app = h.unique("com.example.live")
        self.server.put_app(app, "Live")
        self.open_session(user)
        p.one(self.browser, "p#no-prompts")
        marker = self.browser.execute_script("window.__notReloaded = true; return window.__notReloaded")
        self.assertTrue(marker)
        prompt = self.server.prompt_for(user, app, "camera", "full")
        h.wait(self.browser, lambda b: p.exists(b, f'div.alert[data-prompt-id="{prompt["id"]}"]'),
               timeout=h.LIVE_UPDATE_DEADLINE, message="the new prompt on the open page")
        self.assertTrue(self.browser.execute_script("return window.__notReloaded === true"), "no reload")
        self.assertEqual(p.css(self.browser, "p#no-prompts"), [])
        second = self.server.prompt_for(user, app, "tracking", "full")
        h.wait(self.browser, lambda b: p.exists(b, f'div.alert[data-prompt-id="{second["id"]}"]'),
               timeout=h.LIVE_UPDATE_DEADLINE, message="a second new prompt")
        element = p.alert(self.browser, second["id"])
        self.assertEqual(p.choices(element), [("allow", "Allow"), ("deny", h.TRACKING_DENY["en"])])
        # A screen reader hears the new prompt's title, not the whole list again.
        self.assertIsNone(p.one(self.browser, "section#prompts").get_attribute("aria-live"))
        status = p.one(self.browser, "p#prompts-status")
        self.assertEqual(status.get_attribute("role"), "status")
        title = element.find_element(By.CSS_SELECTOR, ".alert-title").get_attribute("textContent")
        h.wait(self.browser, lambda b: status.get_attribute("textContent") == title,
               timeout=h.LIVE_UPDATE_DEADLINE, message="the new prompt's title announced")
        p.choose(self.browser, second["id"], "allow")  # the replaced fragment's form still works
        self.assertEqual(self.server.authorization(user, app, "tracking")["status"], "authorized")

    def test_a_prompt_made_before_the_stream_opens_appears(self):
        """A slow link: the page's stream opens 3 s after the page was made, and a prompt is made
        in between. The stream starts where the page was made (its section's data-after), so the
        prompt still appears without a reload."""
        user = h.unique("slowlink")
        app = h.unique("com.example.slowlink")
        self.server.put_app(app, "Slow")
        delay = """(function () {
          var Real = window.EventSource;
          window.EventSource = function (url) {
            var queued = [], stream = { real: null };
            stream.addEventListener = function (name, f) {
              if (stream.real) { stream.real.addEventListener(name, f); } else { queued.push([name, f]); }
            };
            stream.close = function () { if (stream.real) { stream.real.close(); } };
            setTimeout(function () {
              stream.real = new Real(url);
              queued.forEach(function (q) { stream.real.addEventListener(q[0], q[1]); });
            }, 3000);
            return stream;
          };
        })();"""
        script = self.browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": delay})
        try:
            self.open_session(user)
            p.one(self.browser, "p#no-prompts")
            prompt = self.server.prompt_for(user, app, "camera", "full")  # before the stream opens
            h.wait(self.browser, lambda b: p.exists(b, f'div.alert[data-prompt-id="{prompt["id"]}"]'),
                   timeout=3 + h.LIVE_UPDATE_DEADLINE, message="the prompt made before the stream opened")
        finally:
            self.browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})

    def test_a_page_whose_session_another_link_replaced_loads_that_sessions_page(self):
        """Two links in one browser: the second replaces the first's cookie. The first tab's live
        update then never shows the second user's prompts under the first user's name: it loads
        the page again, which is the second user's throughout."""
        first, second = h.unique("tab-a"), h.unique("tab-b")
        app = h.unique("com.example.tabs")
        self.server.put_app(app, "Tabs")
        self.open_session(first)
        self.assertIn(first, p.one(self.browser, "p.user").text)
        tab = self.browser.current_window_handle
        self.browser.switch_to.new_window("tab")
        try:
            self.open_session(second)
            theirs = self.server.prompt_for(second, app, "microphone", "full")
            self.browser.switch_to.window(tab)
            self.server.prompt_for(first, app, "camera", "full")  # an event on the first tab's stream
            # Read in one script: the page is replaced under the test while it loads again.
            user_line = "var e = document.querySelector('p.user'); return e ? e.textContent : '';"
            h.wait(self.browser, lambda b: second in b.execute_script(user_line),
                   timeout=h.LIVE_UPDATE_DEADLINE, message="the first tab loading the page of the session it now has")
            self.assertTrue(p.exists(self.browser, f'div.alert[data-prompt-id="{theirs["id"]}"]'))
        finally:
            for handle in self.browser.window_handles:
                if handle != tab:
                    self.browser.switch_to.window(handle)
                    self.browser.close()
            self.browser.switch_to.window(tab)

    def test_focus_stays_on_its_button_when_the_prompts_change(self):
        """A live update keeps focus on the same button of the same prompt; when that prompt goes,
        focus goes to the section, so that Enter answers nothing the person was not looking at."""
        user = h.unique("focus")
        chat, maps = h.unique("com.example.focuschat"), h.unique("com.example.focusmaps")
        self.server.put_app(chat, "Chat")
        self.server.put_app(maps, "Maps")
        first = self.server.prompt_for(user, chat, "camera", "full")
        self.open_session(user)
        self.tab_to(first["id"], "deny")
        second = self.server.prompt_for(user, maps, "location", "whenInUse")
        h.wait(self.browser, lambda b: p.exists(b, f'div.alert[data-prompt-id="{second["id"]}"]'),
               timeout=h.LIVE_UPDATE_DEADLINE, message="the new prompt on the open page")
        focused = ("var e = document.activeElement; var a = e && e.closest('div.alert');"
                   "return [e ? e.tagName : null, e ? e.id : null, e ? e.value : null,"
                   " a ? a.dataset.promptId : null];")
        self.assertEqual(self.browser.execute_script(focused), ["BUTTON", "", "deny", first["id"]])
        # The focused prompt goes (its authorization set through the API cancels it).
        self.server.set_authorization(user, chat, "camera", "denied")
        h.wait(self.browser, lambda b: not p.exists(b, f'div.alert[data-prompt-id="{first["id"]}"]'),
               timeout=h.LIVE_UPDATE_DEADLINE, message="the cancelled prompt to leave the page")
        self.assertEqual(self.browser.execute_script(focused)[:2], ["SECTION", "prompts"])
        ActionChains(self.browser).send_keys(Keys.ENTER).perform()
        time.sleep(1)
        self.assertEqual(self.server.prompt(second["id"])["state"], "pending", "Enter answered nothing")

    def test_an_apps_name_cannot_reorder_the_titles_words(self):
        """A name with a right-to-left override (at its end, at its start, after a stray pop of
        an isolate), embedding or in Hebrew leaves the title's own words as they are: each is
        drawn left to right (its first letter left of its last), and the words of a line in
        their order."""
        user = h.unique("bidi")
        names = ["Maps\u202e", "\u202eMaps", "Maps\u2069\u202e", "Maps\u202b\u05de\u05e4\u05d5\u05ea", "\u05de\u05e4\u05d5\u05ea"]
        prompts = []
        for index, name in enumerate(names):
            app = h.unique(f"com.example.bidi{index}")
            self.server.put_app(app, name)
            prompts.append((name, self.server.prompt_for(user, app, "camera", "full")))
        self.open_session(user)
        words = ["Would", "Like", "to", "Access", "the", "Camera"]
        for name, prompt in prompts:
            with self.subTest(name=ascii(name)):
                title = p.alert(self.browser, prompt["id"]).find_element(By.CSS_SELECTOR, "h2.alert-title")
                self.assertTrue(p.seen(title.text).endswith("” Would Like to Access the Camera"), ascii(title.text))
                drawn = self.browser.execute_script(WORD_EDGES, title, words)
                for word in words:
                    self.assertIsNotNone(drawn[word], f"{word!r} in {ascii(title.text)}")
                    first, last, _ = drawn[word]
                    self.assertLess(first, last, f"{word!r} is drawn left to right in {ascii(title.text)}")
                for before, after in zip(words, words[1:]):
                    if abs(drawn[before][2] - drawn[after][2]) < 2:  # on one line
                        self.assertLess(drawn[before][0], drawn[after][0],
                                        f"{before!r} before {after!r} in {ascii(title.text)}")

    def test_another_users_prompt_never_appears(self):
        user, other = h.unique("alone"), h.unique("crowd")
        app = h.unique("com.example.alone")
        self.server.put_app(app, "Alone")
        mine = self.server.prompt_for(user, app, "camera", "full")
        theirs = self.server.prompt_for(other, app, "camera", "full")
        self.open_session(user)
        ids = [a.get_attribute("data-prompt-id") for a in p.alerts(self.browser)]
        self.assertEqual(ids, [mine["id"]])
        self.assertNotIn(theirs["id"], self.browser.page_source)

    def test_a_reload_after_an_answer_does_not_confirm_it_again(self):
        """The confirmation shows once: its name leaves the address, so a reload shows the
        page without it."""
        user = h.unique("reload")
        app = h.unique("com.example.reload")
        self.server.put_app(app, "Maps")
        prompt = self.server.prompt_for(user, app, "camera", "full")
        self.open_session(user)
        p.choose(self.browser, prompt["id"], "allow")
        self.assertIsNotNone(p.flash(self.browser))
        h.wait(self.browser, lambda b: p.path(b) == "/consent/", message="the address without ?done=")
        p.navigates(self.browser, self.browser.refresh)
        self.assertEqual(p.path(self.browser), "/consent/")
        self.assertIsNone(p.flash(self.browser), "no confirmation after a reload")


class GermanPromptTests(p.PagesTestCase):
    language = "de"

    def test_german_labels_and_purpose_strings(self):
        user = h.unique("de")
        made = []
        for index, case in enumerate(KINDS):
            app, name = f"com.example.german{index}", f"Karten {index}"
            self.server.put_app(app, name)
            made.append((case, app, name, make_prompt(self.server, user, app, case)))
        english_only = h.unique("com.example.englishonly")
        self.server.put_app(english_only, "Englisch", german=False)
        base_prompt = self.server.prompt_for(user, english_only, "camera", "full")
        session_id = self.open_session(user)
        self.assert_prompts_page()
        self.assert_common_layout(language="de")
        for case, app, name, prompt in made:
            with self.subTest(case=case):
                service, level, options = KINDS[case]
                element = p.alert(self.browser, prompt["id"])
                title = p.seen(element.find_element(By.CSS_SELECTOR, "h2.alert-title").text)
                self.assertIn(f"„{name}“", title)
                if case == "location-whenInUse":
                    self.assertEqual(title, f"„{name}“ möchte deinen Standort verwenden")
                key = h.PURPOSE_KEY_FOR[(service, level)]
                message = element.find_element(By.CSS_SELECTOR, "p.alert-message")
                self.assertEqual(message.text, h.PURPOSES[key][1])
                self.assertEqual(message.get_attribute("lang"), "de")
                self.assertEqual(p.choices(element), [(o, h.label("de", o, service)) for o in options])
        with self.subTest(case="no German string: the base string, no lang"):
            message = p.alert(self.browser, base_prompt["id"]).find_element(By.CSS_SELECTOR, "p.alert-message")
            self.assertEqual(message.text, h.PURPOSES["NSCameraUsageDescription"][0])
            self.assertIn(message.get_attribute("lang"), (None, ""))
        camera = next(m for m in made if m[0] == "camera")
        p.choose(self.browser, camera[3]["id"], "allow")
        self.assertIsNotNone(p.flash(self.browser))
        authorization = self.server.authorization(user, camera[1], "camera")
        self.assertEqual(authorization["status"], "authorized")
        self.assertEqual(authorization["purpose"], h.PURPOSES["NSCameraUsageDescription"][1])
        self.assertEqual(authorization.get("purposeLanguage"), "de")
        entry = [e for e in self.server.audit(user, "prompt.answered") if e["promptId"] == camera[3]["id"]]
        self.assertEqual(len(entry), 1)
        self.assertEqual(entry[0]["purpose"], h.PURPOSES["NSCameraUsageDescription"][1])
        self.assertEqual(entry[0]["detail"].get("purposeLanguage"), "de")
        self.assertEqual(entry[0]["actor"], {"keyId": session_id, "role": "user"})
        p.choose(self.browser, base_prompt["id"], "allow")
        plain = self.server.authorization(user, english_only, "camera")
        self.assertEqual(plain["purpose"], h.PURPOSES["NSCameraUsageDescription"][0])
        self.assertNotIn("purposeLanguage", plain)


class WithoutJavaScriptTests(p.PagesTestCase):
    """Plain forms: POST, redirect, GET, with JavaScript turned off in Chromium."""
    javascript = False

    def setUp(self):
        super().setUp()
        self.assertFalse(h.javascript_runs(self.browser), "JavaScript is off in this browser")

    def test_answer_a_prompt_without_javascript(self):
        user = h.unique("nojs")
        app = h.unique("com.example.nojs")
        self.server.put_app(app, "Plain")
        prompt = self.server.prompt_for(user, app, "location", "whenInUse")
        self.open_session(user)
        p.choose(self.browser, prompt["id"], "allowWhileUsing")
        self.assertIsNotNone(p.flash(self.browser))
        # After the redirect, focus starts at what the answer did, not at the top of the page.
        self.assertEqual(self.browser.execute_script("return document.activeElement.id"), "flash")
        authorization = self.server.authorization(user, app, "location")
        self.assertEqual((authorization["status"], authorization.get("level")), ("authorized", "whenInUse"))

    def test_save_a_setting_without_javascript(self):
        user = h.unique("nojsset")
        app = h.unique("com.example.nojsset")
        self.server.put_app(app, "Plain")
        self.server.set_authorization(user, app, "camera", "authorized", "full")
        self.open_session(user)
        h.load(self.browser, "/consent/settings")
        form = p.setting_form(self.browser, "camera", app)
        p.radio(form, "off").click()
        save = form.find_element(By.CSS_SELECTOR, "button.save")
        p.navigates(self.browser, save.click)
        self.assertEqual(self.server.authorization(user, app, "camera")["status"], "denied")


if __name__ == "__main__":
    unittest.main()
