"""The location alert in a real browser (SPEC §11 "Location alerts"), on a server of its own
started with --location-alert-intervals 1s (the run's shared server keeps the default, so no
other test sees an alert): an app holding Always reports background uses, the server's sweeper
issues the alert, and the page shows it as iOS does, with the count, the Always purpose string
and both buttons; "Change to Only While Using" answers it; axe finds nothing on the page."""

import unittest

from selenium.webdriver.common.by import By

import consent_harness as h
import consent_pages as p

ALWAYS_KEY = "NSLocationAlwaysAndWhenInUseUsageDescription"
OPTIONS = ["keepAlways", "changeToWhileUsing"]
TITLES = {
    "en": ("“{name}” has been using your location in the background {uses} times in the past 3 days. "
           "Do you want to continue to allow background location use?"),
    "de": ("„{name}“ hat deinen Standort in den letzten 3 Tagen {uses}-mal im Hintergrund verwendet. "
           "Möchtest du die Standortverwendung im Hintergrund weiterhin erlauben?"),
}


def location_alert(server, user, app, name, uses):
    """Registers `app`, gives `user` Always in settings, reports `uses` background uses and
    waits (bounded) for the sweeper's location alert: the prompt."""
    server.put_app(app, name)
    server.set_authorization(user, app, "location", "authorized", "always")
    for _ in range(uses):
        answer = server.api("POST", f"/v1/users/{user}/apps/{app}/lifecycle", {"event": "backgroundLocationUsed"})
        if answer.get("usageRecorded") is not True:
            raise AssertionError(f"the use was not recorded: {answer}")

    def alert():
        return next((q for q in server.pending(user) if q["kind"] == "locationAlert" and q["app"] == app), None)

    return h.poll(alert, timeout=h.WAIT, message=f"the location alert for {user} {app}")


class LocationAlertTests(p.PagesTestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = h.server_with("--location-alert-intervals", "1s")
        cls.browser = h.driver(cls.language, cls.javascript)

    def test_the_alert_is_shown_answered_and_accessible(self):
        user, app = h.unique("alert"), h.unique("com.example.alert")
        prompt = location_alert(self.server, user, app, "Transit", uses=3)
        self.assertEqual((prompt["backgroundUses"], prompt["options"]), (3, OPTIONS))
        self.open_session(user)
        self.assert_prompts_page()
        self.assert_common_layout()
        element = p.alert(self.browser, prompt["id"])
        self.assertEqual(element.get_attribute("role"), "dialog")
        self.assertEqual(element.get_attribute("data-kind"), "locationAlert")
        self.assertEqual(element.get_attribute("aria-labelledby"), f"title-{prompt['id']}")
        title = p.seen(element.find_element(By.CSS_SELECTOR, f"h2.alert-title#title-{prompt['id']}").text)
        self.assertEqual(title, TITLES["en"].format(name="Transit", uses=3))
        message = element.find_element(By.CSS_SELECTOR, "p.alert-message")
        self.assertEqual(message.text, h.PURPOSES[ALWAYS_KEY][0])
        self.assertEqual(p.choices(element), [(o, h.label("en", o, "location")) for o in OPTIONS])
        self.assertEqual(p.choices(element), [("keepAlways", "Keep Always"),
                                              ("changeToWhileUsing", "Change to Only While Using")])
        for button in element.find_elements(By.CSS_SELECTOR, "button[name=choice]"):
            self.assertNotIn("preferred", button.get_attribute("class") or "", "iOS sets neither in bold")

        for size_name, size in h.SIZES.items():
            with self.subTest(size=size_name):
                h.set_viewport(self.browser, size)
                violations = h.axe_violations(self.browser)
                if violations:
                    h.say(f"axe: location alert at {size_name}:\n" + h.describe_violations(violations))
                self.assertEqual(violations, [], "axe violations on the location alert:\n"
                                 + h.describe_violations(violations))
        h.set_viewport(self.browser, h.DESKTOP)

        p.choose(self.browser, prompt["id"], "changeToWhileUsing")
        self.assertEqual(p.path(self.browser).split("?")[0], "/consent/")
        confirmation = p.flash(self.browser)
        self.assertIsNotNone(confirmation, "a confirmation after the decision")
        self.assertEqual(confirmation.get_attribute("role"), "status")
        self.assertEqual(p.css(self.browser, f'div.alert[data-prompt-id="{prompt["id"]}"]'), [])
        answered = self.server.prompt(prompt["id"])
        self.assertEqual((answered["state"], answered.get("choice")), ("answered", "changeToWhileUsing"))
        authorization = self.server.authorization(user, app, "location")
        self.assertEqual((authorization["status"], authorization.get("level"), authorization["reason"]),
                         ("authorized", "whenInUse", "userConsent"))
        entries = [e for e in self.server.audit(user, "prompt.answered") if e["promptId"] == prompt["id"]]
        self.assertEqual(len(entries), 1)
        self.assertEqual(entries[0]["actor"]["role"], "user")


class GermanLocationAlertTests(p.PagesTestCase):
    language = "de"

    @classmethod
    def setUpClass(cls):
        cls.server = h.server_with("--location-alert-intervals", "1s")
        cls.browser = h.driver(cls.language, cls.javascript)

    def test_the_german_alert_keeps_always(self):
        user, app = h.unique("alarm"), h.unique("com.example.alarm")
        prompt = location_alert(self.server, user, app, "Karten", uses=2)
        self.open_session(user)
        element = p.alert(self.browser, prompt["id"])
        title = p.seen(element.find_element(By.CSS_SELECTOR, "h2.alert-title").text)
        self.assertEqual(title, TITLES["de"].format(name="Karten", uses=2))
        message = element.find_element(By.CSS_SELECTOR, "p.alert-message")
        self.assertEqual((message.text, message.get_attribute("lang")), (h.PURPOSES[ALWAYS_KEY][1], "de"))
        self.assertEqual(p.choices(element), [(o, h.label("de", o, "location")) for o in OPTIONS])
        p.choose(self.browser, prompt["id"], "keepAlways")
        self.assertIsNotNone(p.flash(self.browser))
        authorization = self.server.authorization(user, app, "location")
        self.assertEqual((authorization["status"], authorization.get("level"), authorization["reason"]),
                         ("authorized", "always", "userSet"))


if __name__ == "__main__":
    unittest.main()
