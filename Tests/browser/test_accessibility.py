"""axe-core on every consent page at the phone and the desktop size: every violation found is
printed, and none may be of impact serious or critical."""

import unittest

import consent_harness as h
import consent_pages as p

FAILING_IMPACTS = {"serious", "critical"}


def seed(server, prefix):
    """A user with prompts of several kinds, settings (one restricted) and history, and another
    user's prompt: (the user, the other's prompt)."""
    user = h.unique(prefix)
    apps = []
    for index, name in enumerate(("Maps", "Transit", "Photo Diary")):
        app = h.unique(f"com.example.{prefix}{index}")
        server.put_app(app, name)
        apps.append(app)
    server.prompt_for(user, apps[0], "location", "whenInUse")
    server.upgrade_prompt(user, apps[1])
    server.prompt_for(user, apps[2], "photos", "full")
    server.prompt_for(user, apps[2], "camera", "full")
    server.set_authorization(user, apps[0], "photos", "authorized", "limited")
    server.set_authorization(user, apps[0], "microphone", "denied")
    server.set_authorization(user, apps[1], "camera", "authorized", "full")
    server.api("PUT", f"/v1/policies/{h.unique(prefix + '-restrict-')}",
               {"service": "camera", "app": apps[1], "user": user, "effect": "restrict"})
    return user, server.prompt_for(h.unique(prefix + "-other"), apps[0], "camera", "full")


class AccessibilityTests(p.PagesTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.user, cls.other_prompt = seed(cls.server, "axe")

    def test_every_page_at_both_sizes(self):
        _, url = self.server.consent_link(self.user)
        h.open_link(self.browser, url)
        pages = [
            ("prompts", "/consent/"),
            ("settings", "/consent/settings"),
            ("history", "/consent/history"),
            ("refusal page, link already used", url),
            ("refusal page, another user's prompt", f"/consent/prompts/{self.other_prompt['id']}"),
            ("signed out", "/consent/signed-out"),
        ]
        failing = []
        for size_name, size in h.SIZES.items():
            h.set_viewport(self.browser, size)
            for name, target in pages:
                with self.subTest(page=name, size=size_name):
                    h.load(self.browser, target)
                    violations = h.axe_violations(self.browser)
                    label = f"{name} at {size_name} {size[0]}x{size[1]} ({p.path(self.browser)})"
                    if violations:
                        h.say(f"axe: {label}: {len(violations)} violation(s):\n" + h.describe_violations(violations))
                    else:
                        h.say(f"axe: {label}: no violations")
                    bad = [v for v in violations if v.get("impact") in FAILING_IMPACTS]
                    if bad:
                        failing.append(label)
                    self.assertFalse(bad, f"serious or critical axe violations on {label}:\n"
                                     + h.describe_violations(bad))
        # The empty prompts page too (after the prompts are answered elsewhere).
        for prompt in self.server.pending(self.user):
            self.server.decide(prompt["id"], prompt["options"][-1])
        h.load(self.browser, "/consent/")
        empty = h.axe_violations(self.browser)
        if empty:
            h.say("axe: prompts page, nothing pending:\n" + h.describe_violations(empty))
        bad = [v for v in empty if v.get("impact") in FAILING_IMPACTS]
        self.assertFalse(bad, "serious or critical axe violations:\n" + h.describe_violations(bad))


class DarkModeAccessibilityTests(p.PagesTestCase):
    """Every page, refusals included, in dark mode (prefers-color-scheme: dark, emulated) at
    both sizes: no violation at all (colour contrast, WCAG 1.4.3, among them)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.user, cls.other_prompt = seed(cls.server, "axedark")

    def setUp(self):
        super().setUp()
        h.set_color_scheme(self.browser, "dark")
        self.addCleanup(h.set_color_scheme, self.browser, None)

    def test_every_page_in_dark_mode(self):
        _, url = self.server.consent_link(self.user)
        h.open_link(self.browser, url)
        pages = [
            ("prompts", "/consent/"),
            ("settings, saved", "/consent/settings?done=saved"),
            ("history", "/consent/history"),
            ("refusal page, link already used", url),
            ("refusal page, another user's prompt", f"/consent/prompts/{self.other_prompt['id']}"),
            ("refusal page, no such page", "/consent/nothing-here"),
            ("refusal page, a method the page does not answer", "/consent/logout"),
            ("signed out", "/consent/signed-out"),
        ]
        for size_name, size in h.SIZES.items():
            h.set_viewport(self.browser, size)
            for name, target in pages:
                with self.subTest(page=name, size=size_name):
                    h.load(self.browser, target)
                    self.assertTrue(self.browser.execute_script(
                        "return matchMedia('(prefers-color-scheme: dark)').matches"), "dark mode is emulated")
                    self.assertEqual(self.browser.execute_script(
                        "return getComputedStyle(document.body).backgroundColor"), "rgb(0, 0, 0)",
                        "the page's dark colours apply")
                    violations = h.axe_violations(self.browser)
                    label = f"{name} in dark mode at {size_name} {size[0]}x{size[1]} ({p.path(self.browser)})"
                    h.say(f"axe: {label}: " + (f"{len(violations)} violation(s):\n" + h.describe_violations(violations)
                                                if violations else "no violations"))
                    self.assertFalse(violations, f"axe violations on {label}:\n" + h.describe_violations(violations))


class GermanAccessibilityTests(p.PagesTestCase):
    language = "de"

    def test_german_prompts_page(self):
        user, app = h.unique("axede"), h.unique("com.example.axede")
        self.server.put_app(app, "Karten")
        self.server.prompt_for(user, app, "location", "whenInUse")
        self.open_session(user)
        violations = h.axe_violations(self.browser)
        if violations:
            h.say("axe: German prompts page:\n" + h.describe_violations(violations))
        bad = [v for v in violations if v.get("impact") in FAILING_IMPACTS]
        self.assertFalse(bad, "serious or critical axe violations:\n" + h.describe_violations(bad))


if __name__ == "__main__":
    unittest.main()
