"""Settings › Privacy in a real browser: every option of location and photos and an on/off
service chosen and saved, choosing with the arrow keys saving nothing, the Location Services switch, a restricted entry
shown as such and not changeable; each change checked through the API."""

import time
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import consent_harness as h
import consent_pages as p

# value → the authorization's fields it must make (the contract's mapping)
EXPECTED = {
    "location": {
        "never": {"status": "denied"},
        "askNextTime": {"status": "notDetermined"},
        "whileUsing": {"status": "authorized", "level": "whenInUse"},
        "always": {"status": "authorized", "level": "always"},
    },
    "photos": {
        "none": {"status": "denied"},
        "addOnly": {"status": "authorized", "level": "addOnly"},
        "limited": {"status": "authorized", "level": "limited"},
        "full": {"status": "authorized", "level": "full"},
    },
    "camera": {
        "off": {"status": "denied"},
        "on": {"status": "authorized", "level": "full"},
    },
}
# Where each service starts (set through the API) and the order its options are then chosen
# in, each differing from the one before so that every choice is a change.
START = {"location": ("authorized", "whenInUse"), "photos": ("authorized", "limited"),
         "camera": ("authorized", "full")}
SEQUENCE = {"location": ["always", "never", "askNextTime", "whileUsing"],
            "photos": ["full", "none", "addOnly", "limited"],
            "camera": ["off", "on"]}


def matches(authorization, fields):
    return all(authorization.get(k) == v for k, v in fields.items())


class SettingsTests(p.PagesTestCase):

    def setUp(self):
        super().setUp()
        self.user = h.unique("settings")
        self.app = h.unique("com.example.settings")
        self.server.put_app(self.app, "Maps")

    def open_settings(self):
        h.load(self.browser, "/consent/settings")
        self.assertEqual(p.path(self.browser), "/consent/settings")

    def test_every_option_of_location_photos_and_an_on_off_service(self):
        for service, (status, level) in START.items():
            self.server.set_authorization(self.user, self.app, service, status, level)
        self.open_session(self.user)
        self.open_settings()
        self.assert_common_layout()
        for service in START:
            with self.subTest(service=service, part="shown"):
                form = p.setting_form(self.browser, service, self.app)
                self.assertEqual(form.get_attribute("action"),
                                 self.server.url(f"/consent/settings/{service}/{self.app}"))
                self.assertEqual(form.get_attribute("method"), "post")
                self.assertIn(form.get_attribute("data-restricted"), (None, "", "false"))
                self.assertEqual(p.seen(form.find_element(By.CSS_SELECTOR, "fieldset > legend").text).strip(), "Maps")
                values = [r.get_attribute("value") for r in form.find_elements(By.CSS_SELECTOR, "input[name=value]")]
                self.assertEqual(values, list(EXPECTED[service]))
                for radio in form.find_elements(By.CSS_SELECTOR, "input[name=value]"):
                    self.assertEqual(radio.get_attribute("type"), "radio")
                    self.assertEqual(p.label_for(self.browser, radio).text.strip(),
                                     h.SETTING_LABELS["en"][radio.get_attribute("value")])
                self.assertEqual(len(form.find_elements(By.CSS_SELECTOR, "button.save")), 1)
                current = {"location": "whileUsing", "photos": "limited", "camera": "on"}[service]
                self.assertEqual(p.checked_value(form), current)
        for service, sequence in SEQUENCE.items():
            for value in sequence:
                with self.subTest(service=service, value=value):
                    self.choose_setting(service, value)
                    authorization = h.poll(
                        lambda: matches(self.server.authorization(self.user, self.app, service),
                                        EXPECTED[service][value])
                        and self.server.authorization(self.user, self.app, service),
                        message=f"{service} {value} through the API")
                    self.assertEqual(authorization["reason"], "userSet")
                    self.open_settings()
                    self.assertEqual(p.checked_value(p.setting_form(self.browser, service, self.app)), value)
        changes = [e for e in self.server.audit(self.user) if e["actor"]["role"] == "user"]
        self.assertEqual(len(changes), sum(len(s) for s in SEQUENCE.values()), "one audited change a choice")

    def choose_setting(self, service, value):
        """Clicks the radio's label and then Save, as a person would."""
        form = p.setting_form(self.browser, service, self.app)
        p.label_for(self.browser, p.radio(form, value)).click()
        p.navigates(self.browser, form.find_element(By.CSS_SELECTOR, "button.save").click)
        self.assertIsNotNone(p.flash(self.browser), "the confirmation the redirect named")
        h.wait(self.browser, lambda b: b.current_url == self.server.url("/consent/settings"),
               message="the confirmation's name gone from the address")

    def test_arrow_keys_move_through_the_options_and_save_none(self):
        """WCAG 3.2.2: choosing a radio changes nothing until Save."""
        self.server.set_authorization(self.user, self.app, "location", "denied")
        self.open_session(self.user)
        self.open_settings()
        form = p.setting_form(self.browser, "location", self.app)
        p.radio(form, "never").click()
        self.browser.execute_script(p.MARK)
        for _ in range(3):
            ActionChains(self.browser).send_keys(Keys.ARROW_DOWN).perform()
        self.assertEqual(p.checked_value(form), "always")
        time.sleep(1)  # what a submit on change would have had to reach the server
        self.assertFalse(p.is_new_page(self.browser), "no page was loaded")
        self.assertEqual(self.server.authorization(self.user, self.app, "location")["status"], "denied")
        self.assertEqual([e for e in self.server.audit(self.user) if e["actor"]["role"] == "user"], [])
        p.navigates(self.browser, ActionChains(self.browser).send_keys(Keys.TAB, Keys.ENTER).perform)
        self.assertEqual(self.server.authorization(self.user, self.app, "location").get("level"), "always")
        self.assertEqual(len([e for e in self.server.audit(self.user) if e["actor"]["role"] == "user"]), 1)

    def server_has(self, service, value):
        return matches(self.server.authorization(self.user, self.app, service), EXPECTED[service][value])

    def test_each_entry_and_its_save_button_name_the_app_and_the_service(self):
        """A screen reader hears which app and which service an entry and its Save button are
        for (WCAG 1.3.1, 2.4.6), with the visible label first (WCAG 2.5.3): Chromium's
        computed accessible names."""
        for service, (status, level) in START.items():
            self.server.set_authorization(self.user, self.app, service, status, level)
        self.open_session(self.user)
        self.open_settings()
        names = {"location": "Location Services", "photos": "Photos", "camera": "Camera"}
        for service, service_name in names.items():
            with self.subTest(service=service):
                form = p.setting_form(self.browser, service, self.app)
                group = form.find_element(By.CSS_SELECTOR, "fieldset")
                self.assertEqual(p.seen(group.accessible_name), f"Maps, {service_name}")
                self.assertEqual(group.aria_role, "group")
                save = form.find_element(By.CSS_SELECTOR, "button.save")
                self.assertEqual(p.seen(save.accessible_name), f"Save {service_name} for Maps")
                self.assertEqual(save.text.strip(), "Save", "the visible label is unchanged")
        groups = [g.accessible_name for g in p.css(self.browser, "form.app-setting fieldset")]
        buttons = [b.accessible_name for b in p.css(self.browser, "form.app-setting button.save")]
        self.assertEqual(len(set(groups)), len(groups), f"no two entries sound alike: {groups}")
        self.assertEqual(len(set(buttons)), len(buttons), f"no two Save buttons sound alike: {buttons}")

    def test_location_services_switch(self):
        self.server.set_authorization(self.user, self.app, "location", "authorized", "whenInUse")
        self.open_session(self.user)
        self.open_settings()
        for enabled_before, label in ((True, "Location Services"), (False, "Location Services")):
            with self.subTest(enabled_before=enabled_before):
                switch_form = p.one(self.browser, "form#location-services")
                self.assertEqual(switch_form.get_attribute("action"),
                                 self.server.url("/consent/settings/location-services"))
                button = switch_form.find_element(By.CSS_SELECTOR, "button[name=enabled]")
                self.assertIn(label, switch_form.text)
                self.assertEqual(button.get_attribute("aria-pressed"), "true" if enabled_before else "false")
                self.assertEqual(button.get_attribute("value"), "false" if enabled_before else "true")
                p.navigates(self.browser, button.click)
                self.assertEqual(self.server.settings(self.user)["locationServicesEnabled"], not enabled_before)
                location = self.server.authorization(self.user, self.app, "location")
                if enabled_before:
                    self.assertEqual((location["status"], location["reason"]), ("denied", "servicesDisabled"))
                else:
                    self.assertEqual((location["status"], location.get("level")), ("authorized", "whenInUse"))
                self.open_settings()

    def test_restricted_entry_is_shown_and_disabled(self):
        restricted_app = h.unique("com.example.restricted")
        self.server.put_app(restricted_app, "Kiosk")
        self.server.set_authorization(self.user, restricted_app, "camera", "authorized", "full")
        self.server.set_authorization(self.user, self.app, "camera", "authorized", "full")
        policy = h.unique("no-camera-")
        self.server.api("PUT", f"/v1/policies/{policy}",
                        {"service": "camera", "app": restricted_app, "user": self.user, "effect": "restrict"})
        self.open_session(self.user)
        self.open_settings()
        form = p.setting_form(self.browser, "camera", restricted_app)
        self.assertEqual(form.get_attribute("data-restricted"), "true")
        radios = form.find_elements(By.CSS_SELECTOR, "input[name=value]")
        self.assertEqual(len(radios), 2)
        self.assertTrue(all(not r.is_enabled() for r in radios), "a restricted entry's inputs are disabled")
        self.assertEqual(len(form.find_elements(By.CSS_SELECTOR, "p.restricted")), 1)
        note = form.find_element(By.CSS_SELECTOR, "p.restricted")
        self.assertTrue(note.text.strip())
        # The entry is described by the note: a screen reader says why with the entry.
        fieldset = form.find_element(By.CSS_SELECTOR, "fieldset")
        self.assertEqual(fieldset.get_attribute("aria-describedby"), note.get_attribute("id"))
        self.assertIn("Kiosk", fieldset.accessible_name)
        p.label_for(self.browser, p.radio(form, "off")).click()  # a disabled radio does not change
        self.assertFalse(p.radio(form, "off").is_selected())
        other = p.setting_form(self.browser, "camera", self.app)
        self.assertIn(other.get_attribute("data-restricted"), (None, "", "false"))
        self.assertTrue(all(r.is_enabled() for r in other.find_elements(By.CSS_SELECTOR, "input[name=value]")))
        self.assertEqual(self.server.authorization(self.user, restricted_app, "camera")["status"], "restricted")
        # The form sent anyway (a browser without the disabled attribute) changes nothing.
        pair = "permission_consent=" + p.cookie(self.browser)["value"]
        answer = self.server.http(
            "POST", f"/consent/settings/camera/{restricted_app}", admin=False,
            body=f"csrf={p.csrf_token(self.browser)}&value=off",
            headers={"Cookie": pair, "Content-Type": "application/x-www-form-urlencoded"})
        self.assertIn(answer.status, (303, 409), answer.text[:300])
        self.assertEqual(self.server.authorization(self.user, restricted_app, "camera")["status"], "restricted")
        self.server.api("DELETE", f"/v1/policies/{policy}", expect=(204,))
        stored = self.server.authorization(self.user, restricted_app, "camera")
        self.assertEqual((stored["status"], stored.get("level")), ("authorized", "full"), "the stored choice kept")


class GermanSettingsTests(p.PagesTestCase):
    language = "de"

    def test_german_settings_labels(self):
        user, app = h.unique("desettings"), h.unique("com.example.desettings")
        self.server.put_app(app, "Karten")
        for service, (status, level) in START.items():
            self.server.set_authorization(user, app, service, status, level)
        self.open_session(user)
        h.load(self.browser, "/consent/settings")
        self.assert_common_layout(language="de")
        self.assertIn("Ortungsdienste", p.one(self.browser, "form#location-services").text)
        for service in START:
            with self.subTest(service=service):
                form = p.setting_form(self.browser, service, app)
                for radio in form.find_elements(By.CSS_SELECTOR, "input[name=value]"):
                    self.assertEqual(p.label_for(self.browser, radio).text.strip(),
                                     h.SETTING_LABELS["de"][radio.get_attribute("value")])
                self.assertEqual(form.find_element(By.CSS_SELECTOR, "button.save").text.strip(), "Sichern")
        names = {"location": "Ortungsdienste", "photos": "Fotos", "camera": "Kamera"}
        for service, service_name in names.items():
            with self.subTest(service=service, part="accessible names"):
                form = p.setting_form(self.browser, service, app)
                group = form.find_element(By.CSS_SELECTOR, "fieldset")
                self.assertEqual(p.seen(group.accessible_name), f"Karten, {service_name}")
                save = form.find_element(By.CSS_SELECTOR, "button.save")
                self.assertEqual(p.seen(save.accessible_name), f"Sichern: {service_name} für Karten")


if __name__ == "__main__":
    unittest.main()
