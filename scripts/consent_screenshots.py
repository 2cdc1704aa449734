#!/usr/bin/env python3
"""Takes the screenshots of docs/access-control.md of the consent pages (docs/consent/*.png).

    scripts/consent_screenshots.py [--server PATH] [--out DIR]

Starts the built server (default .build/debug/permission-server; scripts/consent-screenshots.sh
builds it first) on 127.0.0.1 port 0 with a temporary database, makes a user with the prompts
and choices each picture shows through the API, opens consent links in headless Chromium and
saves the viewport at the phone size (390x844, 2 device pixels a CSS pixel) and the desktop size
(1280x800): the prompts page with a location prompt, the upgrade prompt, Settings › Privacy and
the history, in English, and the location prompt in German.
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "Tests", "browser"))

import consent_harness as h  # noqa: E402

SHOTS = [
    # (file stem, language, user key, path, what must be on the page: a selector of the
    # pages' DOM contract, so that no picture of a wrong page is ever taken)
    ("prompt-location", "en", "maps", "/consent/", 'div.alert[data-kind="request"]'),
    ("prompt-upgrade", "en", "upgrade", "/consent/", 'div.alert[data-kind="upgrade"]'),
    ("settings", "en", "settings", "/consent/settings", "form#location-services"),
    ("history", "en", "settings", "/consent/history", "ol#history > li"),
    ("prompt-location-de", "de", "maps", "/consent/", 'html[lang="de"] div.alert[data-kind="request"]'),
]


def seed(server):
    """Users whose pages the pictures show, made through the API."""
    server.put_app("com.example.maps", "Maps")
    server.put_app("com.example.transit", "Transit")
    server.put_app("com.example.photodiary", "Photo Diary")
    server.put_app("com.example.tickets", "Tickets")
    users = {}

    users["maps"] = "u42"
    server.prompt_for("u42", "com.example.maps", "location", "whenInUse")

    users["upgrade"] = "u44"
    server.upgrade_prompt("u44", "com.example.transit")

    users["settings"] = "u45"
    prompt = server.prompt_for("u45", "com.example.maps", "location", "whenInUse")
    server.decide(prompt["id"], "allowWhileUsing")
    prompt = server.prompt_for("u45", "com.example.transit", "location", "always")
    server.decide(prompt["id"], "allowWhileUsing")
    prompt = server.prompt_for("u45", "com.example.photodiary", "photos", "full")
    server.decide(prompt["id"], "selectItems")
    prompt = server.prompt_for("u45", "com.example.tickets", "camera", "full")
    server.decide(prompt["id"], "allow")
    prompt = server.prompt_for("u45", "com.example.photodiary", "camera", "full")
    server.decide(prompt["id"], "deny")
    server.set_authorization("u45", "com.example.maps", "photos", "authorized", "addOnly")
    server.set_authorization("u45", "com.example.tickets", "microphone", "denied")
    server.api("PUT", "/v1/policies/no-microphone-tickets",
               {"service": "microphone", "app": "com.example.tickets", "user": "u45", "effect": "restrict"})
    return users


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.path.join(REPO, ".build/debug/permission-server"))
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "consent"))
    arguments = parser.parse_args()
    os.environ["PERMISSION_SERVER"] = os.path.abspath(arguments.server)
    os.makedirs(arguments.out, exist_ok=True)
    server = h.server()
    written = []
    try:
        users = seed(server)
        signed_in = {}  # language → the user whose session that browser holds
        for stem, language, user_key, path, selector in SHOTS:
            browser = h.driver(language)
            if signed_in.get(language) != users[user_key]:
                _, url = server.consent_link(users[user_key])
                h.open_link(browser, url)
                signed_in[language] = users[user_key]
            sizes = [("phone", h.PHONE, 2), ("desktop", h.DESKTOP, 1)]
            if language != "en":
                sizes = sizes[:1]
            for size_name, size, scale in sizes:
                h.set_viewport(browser, size, scale)
                h.load(browser, path)
                if not browser.find_elements("css selector", selector):
                    raise SystemExit(f"consent-screenshots: {path} has no {selector}: not the page to show")
                browser.execute_script("document.activeElement && document.activeElement.blur()")
                target = os.path.join(arguments.out, f"{stem}-{size_name}.png")
                with open(target, "wb") as f:
                    f.write(browser.get_screenshot_as_png())
                written.append(os.path.relpath(target, REPO))
    finally:
        h.quit_drivers()
        h.stop_server()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
