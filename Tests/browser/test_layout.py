"""Layout at 390x844 and 1280x800: a very long purpose string, one with a word longer than
the screen, Arabic and Hebrew ones and a long app name wrap within the window (no horizontal
overflow); right-to-left text runs right to left; buttons are at least 44 px high."""

import unittest

import consent_harness as h
import consent_pages as p

LONG = ("Your location is used to show nearby stops, departures, delays, platform changes and the "
        "walking route to the next stop, and to warn you when a connection you planned is at risk. ") + (
        "Details: https://transit.example.com/privacy/location-data-retention-and-sharing-policy-"
        "for-realtime-departures-and-journey-planning-" + "x" * 60)
ARABIC = ("يستخدم التطبيق موقعك لعرض المحطات القريبة ومواعيد المغادرة وتنبيهك عند اقتراب محطتك. " * 3).strip()
HEBREW = ("האפליקציה משתמשת במיקום שלך כדי להציג תחנות קרובות, זמני יציאה ולהתריע כשהתחנה שלך קרובה. " * 3).strip()
LONG_NAME = "Regional Transit Authority Departures and Journey Planner Companion"

OVERFLOW = """
var width = window.innerWidth;
var offenders = [];
document.querySelectorAll('body *').forEach(function (e) {
  var r = e.getBoundingClientRect();
  if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) {
    offenders.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
      (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '') +
      ' [' + Math.round(r.left) + ',' + Math.round(r.right) + ']');
  }
});
return [document.documentElement.scrollWidth, width, offenders.slice(0, 10)];
"""
BUTTON_HEIGHTS = """
return Array.from(document.querySelectorAll('button')).filter(function (b) {
  return b.offsetParent !== null;
}).map(function (b) { return [b.textContent.trim(), b.getBoundingClientRect().height]; });
"""


class LayoutTests(p.PagesTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        server = cls.server
        cls.user = h.unique("layout")
        cls.prompts = {}
        for label, text, name in (("long", LONG, LONG_NAME), ("arabic", ARABIC, "خرائط"), ("hebrew", HEBREW, "מפות")):
            app = h.unique("com.example.layout")
            server.put_app(app, name, purposes={"NSLocationWhenInUseUsageDescription": text,
                                                "NSCameraUsageDescription": text}, german=False)
            cls.prompts[label] = server.prompt_for(cls.user, app, "location", "whenInUse")
            server.set_authorization(cls.user, app, "camera", "authorized", "full")
        for index in range(3):
            app = h.unique("com.example.layoutloc")
            server.put_app(app, f"{LONG_NAME} {index}")
            server.set_authorization(cls.user, app, "photos", "authorized", "limited")

    def test_no_horizontal_overflow_at_both_sizes(self):
        self.open_session(self.user)
        for size_name, size in h.SIZES.items():
            h.set_viewport(self.browser, size)
            for page in ("/consent/", "/consent/settings", "/consent/history"):
                with self.subTest(size=size_name, page=page):
                    h.load(self.browser, page)
                    scroll_width, width, offenders = self.browser.execute_script(OVERFLOW)
                    self.assertEqual(width, size[0], "the viewport meta makes the layout width the device's")
                    self.assertLessEqual(scroll_width, width, f"horizontal overflow: {offenders}")
                    self.assertEqual(offenders, [])
                    heights = self.browser.execute_script(BUTTON_HEIGHTS)
                    small = [(text, height) for text, height in heights if height < 44]
                    self.assertEqual(small, [], "buttons at least 44 px high")

    def test_right_to_left_purpose_strings_run_right_to_left(self):
        self.open_session(self.user)
        for label, expected in (("arabic", "rtl"), ("hebrew", "rtl"), ("long", "ltr")):
            with self.subTest(label=label):
                message = p.alert(self.browser, self.prompts[label]["id"]).find_element(
                    "css selector", "p.alert-message")
                self.assertEqual(message.text.strip(), self.prompts[label]["purpose"].strip())
                direction = self.browser.execute_script("return getComputedStyle(arguments[0]).direction", message)
                self.assertEqual(direction, expected)


if __name__ == "__main__":
    unittest.main()
