"""The history page in a real browser: the user's own audit entries, newest first, 20 a page,
paged with a#history-older, nothing of another user."""

import json
import unittest

from selenium.webdriver.common.by import By

import consent_harness as h
import consent_pages as p


class HistoryTests(p.PagesTestCase):

    def test_own_entries_newest_first_paged_by_twenty(self):
        user, other = h.unique("history"), h.unique("stranger")
        app = h.unique("com.example.history")
        self.server.put_app(app, "Maps")
        for index in range(23):
            self.server.set_authorization(user, app, "camera", "authorized" if index % 2 == 0 else "denied",
                                          "full" if index % 2 == 0 else None)
            if index % 5 == 0:
                self.server.set_authorization(other, app, "camera", "denied")
        self.open_session(user)
        h.load(self.browser, "/consent/history")
        self.assert_common_layout()
        pages = []
        for _ in range(5):
            items = p.css(self.browser, "ol#history > li")
            seqs = [int(li.get_attribute("data-seq")) for li in items]
            for li in items:
                self.assertTrue(li.text.strip(), "each entry says what happened")
            pages.append(seqs)
            older = p.css(self.browser, "a#history-older")
            if not older:
                break
            self.assertIn("after=", older[0].get_attribute("href"))
            p.navigates(self.browser, older[0].click)
            self.assertEqual(p.path(self.browser).split("?")[0], "/consent/history")
        self.assertGreaterEqual(len(pages), 2, "more than 20 entries make a second page")
        self.assertEqual(len(pages[0]), 20)
        shown = [seq for page in pages for seq in page]
        self.assertEqual(shown, sorted(shown, reverse=True), "newest first, across pages")
        self.assertEqual(len(shown), len(set(shown)), "no entry twice")
        mine = self.server.audit(user)
        theirs = {e["seq"] for e in self.server.audit(other)}
        self.assertTrue(set(shown) <= {e["seq"] for e in mine}, "only the user's own entries")
        self.assertFalse(set(shown) & theirs)
        changes = sorted((e["seq"] for e in mine if e.get("app")), reverse=True)
        self.assertEqual([s for s in shown if s in set(changes)], changes, "every change of theirs, in order")
        self.assertEqual(len(changes), 23)

    def test_history_names_the_app_and_service(self):
        user, app = h.unique("words"), h.unique("com.example.words")
        self.server.put_app(app, "Wordy Maps")
        prompt = self.server.prompt_for(user, app, "camera", "full")
        self.open_session(user)
        p.choose(self.browser, prompt["id"], "allow")
        h.load(self.browser, "/consent/history")
        answered = [e for e in self.server.audit(user, "prompt.answered")]
        self.assertEqual(len(answered), 1)
        item = p.one(self.browser, f'ol#history > li[data-seq="{answered[0]["seq"]}"]')
        text = item.text
        self.assertTrue("Wordy Maps" in text or app in text, text)
        self.assertIn("amera", text)  # Camera / camera / Kamera: the service named

    def test_download_my_data_fetches_the_users_own_export_with_the_session(self):
        user, other = h.unique("export"), h.unique("stranger")
        app = h.unique("com.example.export")
        self.server.put_app(app, "Maps")
        self.server.set_authorization(user, app, "camera", "authorized", "full")
        self.server.set_authorization(other, app, "microphone", "denied")
        self.open_session(user)
        h.load(self.browser, "/consent/history")
        link = p.one(self.browser, "a#download-data")
        self.assertTrue(link.text.strip(), "the link says what it does")
        self.assertEqual(link.get_attribute("download"), "", "offered as a download")
        self.assertTrue(link.get_attribute("href").endswith("/consent/export"), link.get_attribute("href"))
        # What the link downloads, fetched as the page would, with the session's cookie only.
        fetched = self.browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0], {credentials: "same-origin"})
                .then(r => r.text().then(body => done({status: r.status, type: r.headers.get("Content-Type"),
                    disposition: r.headers.get("Content-Disposition"), cache: r.headers.get("Cache-Control"),
                    body: body})))
                .catch(e => done({error: String(e)}));
        """, link.get_attribute("href"))
        self.assertNotIn("error", fetched, fetched)
        self.assertEqual(fetched["status"], 200, fetched)
        self.assertEqual(fetched["type"], "application/json")
        self.assertEqual(fetched["cache"], "no-store")
        self.assertIn(f'filename="permissions-{user}.json"', fetched["disposition"])
        export = json.loads(fetched["body"])
        self.assertEqual(export["user"], user)
        self.assertEqual([r["dataCategory"] for r in export["consentRecords"]], ["camera"])
        self.assertEqual([e["seq"] for e in export["audit"]], [e["seq"] for e in self.server.audit(user)],
                         "every entry about the user, and only theirs")


if __name__ == "__main__":
    unittest.main()
