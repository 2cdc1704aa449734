/// The consent pages' script (`/consent/static/app.js`, loaded with `defer`): everything
/// works without it. Where it runs, the prompts page listens to `/consent/events` (the
/// session user's own prompt changes) and replaces `section#prompts` with
/// `/consent/prompts-fragment` on each event, so a new prompt appears without a reload. Focus
/// inside the section stays on the same button of the same prompt; when that prompt is gone it
/// goes to the section itself, never to another prompt's button, where a key press would
/// answer a prompt the person was not looking at. The titles of the prompts that appeared are
/// put in `p#prompts-status` (a polite status region), so a screen reader announces what is new
/// rather than the whole list again. A settings choice is saved by its Save
/// button only: choosing a radio with the arrow keys must not save each option passed
/// (WCAG 2.1, 3.2.2 On Input). On every page of a session, the session's end is shown in the
/// browser's time zone, and `ConsentSession.warningLead` before it the warning region says
/// that it ends soon and shows "Stay Signed In" (WCAG 2.2.1 Timing Adjustable), then that it
/// has ended; pages open in other tabs share a later end (`BroadcastChannel`), so a session
/// extended in one tab stops warning in the others. On every page, the `done` name a change was redirected with
/// leaves the address once its sentence is shown, so that a reload or a bookmark does not say
/// again that something was saved.
enum ConsentScript {
    static let javaScript = #"""
        "use strict";
        (function () {
          if (!window.history || !history.replaceState || !window.URLSearchParams) { return; }
          var query = new URLSearchParams(window.location.search);
          if (!query.has("done")) { return; }
          query.delete("done");
          var rest = query.toString();
          history.replaceState(history.state, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
        })();
        (function () {
          var end = document.getElementById("session-end");
          var text = document.getElementById("session-warning-text");
          var actions = document.getElementById("session-warning-actions");
          if (!end || !text || !actions) { return; }
          // Counted from the time left when the page was made, on this browser's clock: a clock
          // that is off shifts the time shown, never the warning.
          var endsAt = Date.now() + Number(end.getAttribute("data-left-ms"));
          var lead = Number(text.getAttribute("data-lead-ms"));
          if (isNaN(endsAt) || isNaN(lead)) { return; }
          var footerForms = document.querySelectorAll("footer form.extend");
          var timer = null;
          function showEnd() {
            // The machine-readable end follows the text (assistive technology reads it).
            end.setAttribute("datetime", new Date(endsAt).toISOString());
            try {
              end.textContent = new Date(endsAt).toLocaleTimeString(document.documentElement.lang || undefined,
                                                                     { hour: "2-digit", minute: "2-digit" });
            } catch (error) {}
          }
          function check() {
            var left = endsAt - Date.now();
            var ended = left <= 0;
            var soon = !ended && left <= lead;
            actions.hidden = !soon;
            Array.prototype.forEach.call(footerForms, function (form) { form.hidden = ended; });
            var message = ended ? text.getAttribute("data-ended") : soon ? text.getAttribute("data-soon") : "";
            // Set only when it changes: an alert region announces each new text.
            if (text.textContent !== message) { text.textContent = message; }
            if (timer !== null) { window.clearTimeout(timer); timer = null; }
            if (ended) { return; }
            timer = window.setTimeout(check, soon ? Math.min(left + 50, 30000) : Math.min(left - lead + 50, 60000));
          }
          // Other pages of the same session open in this browser share their end: a session
          // extended in one tab no longer warns, or says it has ended, in another. (Another
          // link opened since is another session, whose end says nothing of this one.)
          var session = end.getAttribute("data-session") || "";
          if (window.BroadcastChannel) {
            var channel = new BroadcastChannel("permission-consent-session");
            channel.onmessage = function (event) {
              if (!event.data || event.data.session !== session) { return; }
              var other = Number(event.data.endsAt);
              if (isNaN(other) || other <= endsAt) { return; }
              endsAt = other;
              showEnd();
              check();
            };
            channel.postMessage({ session: session, endsAt: endsAt });
          }
          showEnd();
          check();
        })();
        (function () {
          var section = document.getElementById("prompts");
          if (!section || !window.EventSource || !window.fetch) { return; }
          var status = document.getElementById("prompts-status");
          function shownIds() {
            return Array.prototype.map.call(section.querySelectorAll("div.alert"), function (alert) {
              return alert.getAttribute("data-prompt-id");
            });
          }
          var loading = false;
          var again = false;
          var session = section.getAttribute("data-session") || "";
          var after = section.getAttribute("data-after");
          function refresh() {
            if (loading) { again = true; return; }
            loading = true;
            fetch("/consent/prompts-fragment?session=" + encodeURIComponent(session),
                  { credentials: "same-origin", headers: { "Accept": "text/html" } })
              .then(function (response) {
                // Another link has replaced this page's session: show that session's page.
                if (response.status === 409) { source.close(); window.location.reload(); throw new Error("session"); }
                if (!response.ok) { throw new Error("fragment " + response.status); }
                return response.text();
              })
              .then(function (html) {
                var active = document.activeElement;
                var focused = active && active !== section && section.contains(active);
                var alert = focused ? active.closest("div.alert") : null;
                var promptId = alert ? alert.getAttribute("data-prompt-id") : null;
                var choice = focused ? active.getAttribute("value") : null;
                var before = shownIds();
                section.innerHTML = html;
                if (status) {
                  var appeared = Array.prototype.filter.call(section.querySelectorAll("div.alert"), function (alert) {
                    return before.indexOf(alert.getAttribute("data-prompt-id")) < 0;
                  }).map(function (alert) {
                    var title = alert.querySelector(".alert-title");
                    return title ? title.textContent : "";
                  });
                  if (appeared.length) { status.textContent = appeared.join(". "); }
                }
                if (!focused) { return; }
                var same = promptId && choice ? section.querySelector(
                  'div.alert[data-prompt-id="' + CSS.escape(promptId) + '"] button[value="' + CSS.escape(choice) + '"]') : null;
                if (same) { same.focus(); } else { section.focus(); }
              })
              .catch(function () {})
              .then(function () {
                loading = false;
                if (again) { again = false; refresh(); }
              });
          }
          // From the position the page was made at: a prompt made before the stream opens is an event.
          var source = new EventSource("/consent/events" + (after ? "?after=" + encodeURIComponent(after) : ""));
          ["prompt.created", "prompt.answered", "prompt.expired", "prompt.cancelled"].forEach(function (name) {
            source.addEventListener(name, refresh);
          });
          var opened = false;
          source.addEventListener("open", function () {
            // After a reconnect, catch up on what was missed while away.
            if (opened) { refresh(); }
            opened = true;
          });
        })();
        """#
}
