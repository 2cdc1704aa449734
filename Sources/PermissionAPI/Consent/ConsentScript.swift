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
/// browser's time zone, and `ConsentPage.sessionWarningLead` before it the warning region says
/// that it ends soon and shows "Stay Signed In" (WCAG 2.2.1 Timing Adjustable), then that it
/// has ended. On every page, the `done` name a change was redirected with
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
          try {
            end.textContent = new Date(endsAt).toLocaleTimeString(document.documentElement.lang || undefined,
                                                                   { hour: "2-digit", minute: "2-digit" });
          } catch (error) {}
          function check() {
            var left = endsAt - Date.now();
            if (left <= 0) {
              actions.hidden = true;
              Array.prototype.forEach.call(document.querySelectorAll("footer form.extend"), function (form) {
                form.hidden = true;
              });
              text.textContent = text.getAttribute("data-ended");
              return;
            }
            if (left <= lead) {
              if (actions.hidden) {
                actions.hidden = false;
                text.textContent = text.getAttribute("data-soon");
              }
              window.setTimeout(check, Math.min(left + 50, 30000));
              return;
            }
            window.setTimeout(check, Math.min(left - lead + 50, 60000));
          }
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
