"""The consent link in a real browser: the exchange, the cookie Chromium keeps, the refusals,
the security headers, and that a session reaches nothing of another user."""

import unittest
import urllib.parse

from selenium.webdriver.common.by import By

import consent_harness as h
import consent_pages as p

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


class ConsentLinkTests(p.PagesTestCase):

    def forget_cookies(self, url):
        """Drops the browser's cookies of the service `url` is on (a page of it is open first)."""
        self.browser.get(url.split("/consent/", 1)[0] + "/consent/static/style.css")
        self.browser.delete_all_cookies()

    def click_in_mail(self, url):
        """Clicks `url` on a page of another origin, as in a mail: a cross-site navigation."""
        mail = "<!doctype html><title>Mail</title><a id='open' href='%s'>Your privacy choices</a>" % url
        self.browser.get("data:text/html;charset=utf-8," + urllib.parse.quote(mail))
        self.browser.find_element(By.ID, "open").click()

    def test_link_opens_the_prompts_page_and_drops_the_token(self):
        user = h.unique("link")
        self.open_session(user)
        self.assertEqual(p.path(self.browser), "/consent/", "the link's page goes on to the prompts page")
        self.assertNotIn("token", self.browser.current_url)
        self.assertIsNotNone(p.cookie(self.browser))
        self.assertEqual(self.browser.find_element(By.TAG_NAME, "html").get_attribute("lang"), "en")
        self.assertEqual(len(p.css(self.browser, "h1")), 1)

    def test_a_link_clicked_on_another_site_opens_the_prompts_page(self):
        """A link in a mail or on the integrator's site: the click is a cross-site navigation,
        which carries no SameSite=Strict cookie through a redirect; the link's page goes on to
        the prompts page by itself, a same-site navigation that does."""
        user = h.unique("crosssite")
        prompt = self.server.prompt_for(user, self.maps_app(), "camera", "full")
        _, url = self.server.consent_link(user)
        self.forget_cookies(url)
        self.click_in_mail(url)
        h.wait(self.browser, lambda b: p.path(b) == "/consent/", message="the prompts page")
        h.wait_for_landing(self.browser)
        self.assert_prompts_page()
        self.assertEqual([a.get_attribute("data-prompt-id") for a in p.alerts(self.browser)], [prompt["id"]])
        self.assertIsNotNone(p.cookie(self.browser))
        self.browser.back()  # the link's page is not in the history: back leaves the service
        h.wait(self.browser, lambda b: b.title == "Mail", message="the mail page again")

    def test_a_link_clicked_twice_in_the_mail_leads_back_to_the_open_session(self):
        """The second click is cross-site too, so it carries no cookie and the link is used: the
        page says so and links on to the pages, where the session the first click opened is
        still live in this browser."""
        user = h.unique("twice")
        prompt = self.server.prompt_for(user, self.maps_app(), "camera", "full")
        _, url = self.server.consent_link(user)
        self.forget_cookies(url)
        for _ in range(2):
            self.click_in_mail(url)
            h.wait(self.browser, lambda b: b.title != "Mail", message="the service's page")
            h.wait_for_landing(self.browser)
        self.assertIn("already used", p.h1(self.browser))
        self.browser.find_element(By.ID, "open").click()
        h.wait(self.browser, lambda b: p.path(b) == "/consent/", message="the prompts page")
        h.wait_for_landing(self.browser)
        self.assert_prompts_page()
        self.assertEqual([a.get_attribute("data-prompt-id") for a in p.alerts(self.browser)], [prompt["id"]])

    def test_link_page_without_its_refresh_has_a_link_on(self):
        pair, start = self.server.session_cookie(h.unique("goeson"))
        self.assertIn(h.GOES_ON, start.text)
        self.assertIn('<a id="open" href="/consent/">', start.text)
        self.assertEqual(self.cookie_get("/consent/", pair).status, 200)

    def test_cookie_flags_as_chromium_keeps_them(self):
        self.open_session(h.unique("cookie"))
        kept = p.cookie(self.browser)
        self.assertIsNotNone(kept, "the link sets the session cookie")
        self.assertTrue(kept["httpOnly"])
        self.assertEqual(kept["sameSite"], "Strict")
        self.assertEqual(kept["path"], "/consent")
        self.assertFalse(kept["secure"], "--consent-cookie-secure false: plain HTTP")
        self.assertIn("expiry", kept, "a Max-Age cookie, not a session-long one")
        self.assertEqual(self.browser.execute_script("return document.cookie"), "", "HttpOnly: no script reads it")

    def test_set_cookie_as_sent(self):
        pair, response = self.server.session_cookie(h.unique("setcookie"))
        self.assertIsNone(response.headers.get("Location"))
        raw = response.headers["Set-Cookie"]
        attributes = [a.strip() for a in raw.split(";")[1:]]
        self.assertIn("Path=/consent", attributes)
        self.assertIn("HttpOnly", attributes)
        self.assertIn("SameSite=Strict", attributes)
        self.assertNotIn("Secure", attributes)
        self.assertTrue(pair.startswith("permission_consent="))

    def test_reused_link_shows_the_error_page_and_sets_no_cookie(self):
        _, url = self.server.consent_link(h.unique("reuse"))
        h.open_link(self.browser, url)
        self.assertIsNotNone(p.cookie(self.browser))
        h.open_link(self.browser, url)  # the same link again, cookies forgotten first
        self.assertEqual(p.path(self.browser), url.split(self.server.base, 1)[1], "no redirect")
        self.assertIn("already used", p.h1(self.browser))
        self.assertIsNone(p.cookie(self.browser), "a reused link sets no cookie")
        again = self.server.http("GET", url[len(self.server.base):], admin=False)
        self.assertEqual(again.status, 410)
        self.assertIsNone(again.headers.get("Set-Cookie"))

    def test_forged_and_cut_links_show_the_error_page(self):
        for query, status in (("?token=" + "A" * 43, 400), ("?token=abc", 400), ("", 400)):
            with self.subTest(query=query):
                h.open_link(self.browser, self.server.url("/consent/start" + query))
                self.assertTrue(p.h1(self.browser))
                self.assertIsNone(p.cookie(self.browser))
                answer = self.server.http("GET", "/consent/start" + query, admin=False)
                self.assertEqual(answer.status, status)
                self.assertIsNone(answer.headers.get("Set-Cookie"))

    def test_ended_session_shows_the_expired_page(self):
        user = h.unique("ended")
        session_id = self.open_session(user)
        self.server.api("DELETE", f"/v1/consent-sessions/{session_id}", expect=(204,))
        h.load(self.browser, "/consent/")
        self.assertIn("expired", p.h1(self.browser))

    def test_sign_out_ends_the_session_and_a_reload_posts_nothing(self):
        """Sign Out ends the session, clears the cookie and lands on a page of its own (a 303,
        as every form here answers), so a reload loads that page again instead of posting the
        form once more; the prompts page then says the link has expired."""
        user = h.unique("signout")
        session_id = self.open_session(user)
        button = p.one(self.browser, "form#logout button")
        p.navigates(self.browser, button.click)
        self.assertEqual(p.path(self.browser), "/consent/signed-out")
        self.assertEqual(p.h1(self.browser), "You are signed out")
        self.assertIsNone(p.cookie(self.browser))
        self.assertFalse(p.exists(self.browser, "form#logout"), "no session, no sign-out form")
        ended = self.server.audit(user, "consent.session.ended")
        self.assertEqual([e["actor"] for e in ended], [{"keyId": session_id, "role": "user"}])
        p.navigates(self.browser, self.browser.refresh)
        self.assertEqual(p.path(self.browser), "/consent/signed-out")
        self.assertEqual(p.h1(self.browser), "You are signed out")
        self.assertEqual(len(self.server.audit(user, "consent.session.ended")), 1, "the reload posted nothing")
        h.load(self.browser, "/consent/")
        self.assertIn("expired", p.h1(self.browser))

    def test_security_headers_on_every_consent_url(self):
        user = h.unique("headers")
        prompt = self.server.prompt_for(user, self.maps_app(), "camera", "full")
        pair, start = self.server.session_cookie(user)
        _, reused = self.server.consent_link(user)
        self.server.http("GET", reused[len(self.server.base):], admin=False)
        other = self.server.prompt_for(h.unique("headers-other"), self.maps_app(), "camera", "full")
        cases = [
            ("start", start, 200),
            ("reused link", self.server.http("GET", reused[len(self.server.base):], admin=False), 410),
            ("no session", self.server.http("GET", "/consent/", admin=False), 401),
            ("prompts", self.cookie_get("/consent/", pair), 200),
            ("settings", self.cookie_get("/consent/settings", pair), 200),
            ("history", self.cookie_get("/consent/history", pair), 200),
            ("another user's prompt", self.cookie_get(f"/consent/prompts/{other['id']}", pair), 404),
            ("stylesheet", self.cookie_get("/consent/static/style.css", pair), 200),
            ("script", self.cookie_get("/consent/static/app.js", pair), 200),
        ]
        for name, response, status in cases:
            with self.subTest(page=name):
                self.assertEqual(response.status, status, response.text[:300])
                for field, value in SECURITY_HEADERS.items():
                    self.assertEqual(response.headers.get(field), value, f"{field} of {name}")
        self.assertEqual(self.server.prompt(prompt["id"])["state"], "pending")

    def test_the_cookie_is_no_credential_on_the_api(self):
        user = h.unique("apicookie")
        pair, _ = self.server.session_cookie(user)
        answer = self.server.http("GET", f"/v1/users/{user}/prompts", headers={"Cookie": pair}, admin=False)
        self.assertEqual(answer.status, 401)

    def test_session_cannot_reach_another_user(self):
        user, other = h.unique("mine"), h.unique("theirs")
        app = self.maps_app()
        theirs = self.server.prompt_for(other, app, "camera", "full")
        self.open_session(user)
        csrf = p.csrf_token(self.browser)  # the logout form carries it on every page
        h.load(self.browser, f"/consent/prompts/{theirs['id']}")
        self.assertEqual(p.h1(self.browser), "Not found")  # as for a prompt that is not there
        self.assertNotIn(theirs["purpose"], self.browser.page_source)
        pair = "permission_consent=" + p.cookie(self.browser)["value"]
        for method, path, body in (
                ("GET", f"/consent/prompts/{theirs['id']}", None),
                ("POST", f"/consent/prompts/{theirs['id']}/decision", f"csrf={csrf}&choice=allow")):
            with self.subTest(method=method, path=path):
                answer = self.server.http(method, path, body=body, admin=False, headers={
                    "Cookie": pair, "Content-Type": "application/x-www-form-urlencoded"})
                self.assertIn(answer.status, (403, 404), answer.text[:300])
                self.assertIn("text/html", answer.headers.get("Content-Type", ""))
        self.assertEqual(self.server.prompt(theirs["id"])["state"], "pending")
        self.assertEqual(self.server.authorization(other, app, "camera")["status"], "notDetermined")

    def test_a_tampered_decision_form_cannot_answer_another_users_prompt(self):
        """The real form in the browser, its action pointed at another user's prompt."""
        user, other = h.unique("tamper"), h.unique("victim")
        app = self.maps_app()
        mine = self.server.prompt_for(user, app, "camera", "full")
        theirs = self.server.prompt_for(other, app, "camera", "full")
        self.open_session(user)
        form = p.alert(self.browser, mine["id"]).find_element(By.CSS_SELECTOR, "form.alert-actions")
        self.browser.execute_script(
            "arguments[0].setAttribute('action', arguments[1])", form, f"/consent/prompts/{theirs['id']}/decision")
        button = form.find_element(By.CSS_SELECTOR, 'button[name=choice][value="allow"]')
        p.navigates(self.browser, button.click)
        self.assertIn(p.h1(self.browser), ("Not found", "Not allowed"))
        self.assertEqual(self.server.prompt(theirs["id"])["state"], "pending")
        self.assertEqual(self.server.prompt(mine["id"])["state"], "pending")
        self.assertEqual(self.server.authorization(other, app, "camera")["status"], "notDetermined")

    # The app every test here uses.
    _maps = None

    def maps_app(self):
        if ConsentLinkTests._maps is None:
            ConsentLinkTests._maps = h.unique("com.example.linkmaps")
            self.server.put_app(ConsentLinkTests._maps, "Maps")
        return ConsentLinkTests._maps

    def cookie_get(self, path, pair):
        return self.server.http("GET", path, headers={"Cookie": pair}, admin=False)


if __name__ == "__main__":
    unittest.main()


class SecureCookieTests(p.PagesTestCase):
    """The default, a `Secure` cookie, in Chromium: it treats a loopback address as a secure
    origin, so the cookie is kept under its `__Host-` name and opens the pages; a cookie of the
    plain or the `__Secure-` name planted beside it is not read."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = h.server_with("--consent-cookie-secure", "true")

    def test_the_secure_cookie_is_kept_under_its_prefixed_name(self):
        user = h.unique("secure")
        self.open_session(user)
        self.assert_prompts_page()
        kept = [c for c in self.browser.get_cookies() if c["name"] == "__Host-permission_consent"]
        self.assertEqual(len(kept), 1, f"the prefixed cookie: {self.browser.get_cookies()}")
        self.assertTrue(kept[0]["secure"] and kept[0]["httpOnly"])
        self.assertEqual(kept[0]["path"], "/")
        self.assertFalse(kept[0].get("domain", "").startswith("."), f"a host-only cookie: {kept[0]}")
        # The copies under the names of earlier versions, for their servers during a rolling
        # update: the same secret, also Secure.
        for name in ("__Secure-permission_consent", "permission_consent"):
            copies = [c for c in self.browser.get_cookies() if c["name"] == name]
            self.assertEqual(len(copies), 1, f"{name}: {self.browser.get_cookies()}")
            self.assertEqual(copies[0]["value"], kept[0]["value"])
            self.assertTrue(copies[0]["secure"] and copies[0]["httpOnly"])
            self.assertEqual(copies[0]["path"], "/consent")
        self.assertIn(user, p.one(self.browser, "p.user").text)

    def test_a_cookie_planted_beside_it_is_not_read(self):
        """Another user's live session secret planted under the plain name (as a plain-HTTP
        page of the same host could) or the `__Secure-` name (as a sibling subdomain could,
        with a longer path that the browser sends first) does not shadow the real cookie; the
        plain name alone opens nothing."""
        victim, planted = h.unique("victim"), h.unique("planted")
        pair, _ = self.server.session_cookie(planted)
        secret = pair.split("=", 1)[1]
        self.open_session(victim)
        self.browser.add_cookie({"name": "permission_consent", "value": secret, "path": "/consent"})
        self.browser.add_cookie({"name": "__Secure-permission_consent", "value": secret, "path": "/consent/",
                                 "secure": True})
        planted_paths = {c["path"] for c in self.browser.get_cookies() if c["name"] == "__Secure-permission_consent"}
        self.assertIn("/consent/", planted_paths, "the browser kept the planted cookie")
        h.load(self.browser, self.server.url("/consent/"))
        self.assertIn(victim, p.one(self.browser, "p.user").text)
        self.assertNotIn(planted, self.browser.page_source)
        for name in ("__Host-permission_consent", "__Secure-permission_consent"):
            self.browser.delete_cookie(name)
        h.load(self.browser, self.server.url("/consent/"))
        self.assertIn("expired", p.h1(self.browser), "the plain name alone opens nothing")



class SessionEndTests(p.PagesTestCase):
    """WCAG 2.2.1 Timing Adjustable: the page says when the session ends, warns two minutes
    before, and "Stay Signed In" moves the end later. A server whose sessions last 125 s, so
    that the warning comes 5 s after the link is made."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = h.server_with("--consent-session-ttl", "125")

    def test_the_page_warns_before_the_end_and_stay_signed_in_moves_it(self):
        user = h.unique("ending")
        session_id = self.open_session(user)
        end = p.one(self.browser, "time#session-end")
        first_end = end.get_attribute("datetime")
        self.assertNotIn("UTC", end.text, "shown in the browser's time zone by the script")
        text = p.one(self.browser, "#session-warning-text")
        self.assertEqual(text.get_attribute("role"), "alert")
        h.wait(self.browser, lambda b: text.text != "", timeout=20, message="the warning two minutes before the end")
        self.assertEqual(text.text, "This session ends in less than 2 minutes. Choices you have not saved yet will be lost.")
        button = p.one(self.browser, "#session-warning-actions form.extend button")
        self.assertTrue(button.is_displayed())
        self.assertEqual(button.accessible_name, "Stay Signed In")
        violations = h.axe_violations(self.browser)
        self.assertFalse(violations, "axe on the page with the warning:\n" + h.describe_violations(violations))
        p.navigates(self.browser, button.click)
        self.assertEqual(p.path(self.browser), "/consent/")
        self.assertEqual(p.flash(self.browser).text, "You stay signed in longer.")
        self.assertEqual(p.one(self.browser, "#session-warning-text").text, "", "no warning right after")
        self.assertFalse(p.one(self.browser, "#session-warning-actions").is_displayed())
        self.assertGreater(h.instant(p.one(self.browser, "time#session-end").get_attribute("datetime")),
                           h.instant(first_end))
        extended = self.server.audit(user, "consent.session.extended")
        self.assertEqual([e["actor"] for e in extended], [{"keyId": session_id, "role": "user"}])

    def test_at_the_end_the_page_says_so_and_offers_no_button(self):
        """Waited out on a server whose sessions last the shortest time allowed (60 s): the
        alert says the session has ended, Stay Signed In is gone from the warning and the
        footer, and the server agrees (a reload says the link has expired)."""
        server = h.server_with("--consent-session-ttl", "60")
        user = h.unique("ended")
        session_id, url = server.consent_link(user)
        h.open_link(self.browser, url)
        text = p.one(self.browser, "#session-warning-text")
        h.wait(self.browser, lambda b: text.text.startswith("This session ends in less than"), timeout=10,
               message="the warning, at once with a session shorter than the lead")
        h.wait(self.browser, lambda b: text.text != "" and "ends in" not in text.text, timeout=75,
               message="the end, about 60 s after the link")
        self.assertEqual(text.text, "This session has ended. To make more changes, ask the app for a new link.")
        self.assertFalse(p.one(self.browser, "#session-warning-actions").is_displayed())
        self.assertFalse([f for f in p.css(self.browser, "footer form.extend") if f.is_displayed()],
                         "no Stay Signed In in the footer")
        violations = h.axe_violations(self.browser)
        self.assertFalse(violations, "axe on the ended page:\n" + h.describe_violations(violations))
        h.load(self.browser, server.url("/consent/"))
        self.assertIn("expired", p.h1(self.browser))
        self.assertEqual(server.audit(user, "consent.session.extended"), [], f"{session_id} was never extended")

    def test_a_session_extended_in_another_tab_stops_warning_here(self):
        """Two tabs of one session: once the warning shows in both, Stay Signed In in one
        clears it in the other, which now shows the later end."""
        user = h.unique("twotabs")
        self.open_session(user)
        first = self.browser.current_window_handle
        text = p.one(self.browser, "#session-warning-text")
        h.wait(self.browser, lambda b: text.text != "", timeout=20, message="the warning in the first tab")
        shown_before = p.one(self.browser, "time#session-end").get_attribute("datetime")
        self.browser.switch_to.new_window("tab")
        try:
            h.load(self.browser, self.server.url("/consent/history"))
            h.wait(self.browser, lambda b: p.one(b, "#session-warning-text").text != "", timeout=20,
                   message="the warning in the second tab")
            button = p.one(self.browser, "#session-warning-actions form.extend button")
            p.navigates(self.browser, button.click)
            self.assertEqual(p.flash(self.browser).text, "You stay signed in longer.")
        finally:
            self.browser.close()
            self.browser.switch_to.window(first)
        h.wait(self.browser, lambda b: p.one(b, "#session-warning-text").text == "", timeout=10,
               message="the first tab's warning gone after the other tab's extension")
        self.assertFalse(p.one(self.browser, "#session-warning-actions").is_displayed())
        later = p.one(self.browser, "time#session-end").get_attribute("datetime")
        self.assertGreater(h.instant(later), h.instant(shown_before), "the later end shown")

