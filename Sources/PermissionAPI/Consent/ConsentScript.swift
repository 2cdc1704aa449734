/// The consent pages' script (`/consent/static/app.js`, loaded with `defer`): everything
/// works without it. Where it runs, the prompts page listens to `/consent/events` (the
/// session user's own prompt changes) and replaces `section#prompts` with
/// `/consent/prompts-fragment` on each event, so a new prompt appears without a reload; and a
/// settings choice is saved as soon as it is made (the Save button stays for no script).
enum ConsentScript {
    static let javaScript = #"""
        "use strict";
        (function () {
          var radios = document.querySelectorAll("form.app-setting input[type=radio]");
          Array.prototype.forEach.call(radios, function (radio) {
            radio.addEventListener("change", function () {
              var form = radio.form;
              if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
            });
          });

          var section = document.getElementById("prompts");
          if (!section || !window.EventSource || !window.fetch) { return; }
          var loading = false;
          var again = false;
          function refresh() {
            if (loading) { again = true; return; }
            loading = true;
            fetch("/consent/prompts-fragment", { credentials: "same-origin", headers: { "Accept": "text/html" } })
              .then(function (response) {
                if (!response.ok) { throw new Error("fragment " + response.status); }
                return response.text();
              })
              .then(function (html) {
                var focused = document.activeElement && section.contains(document.activeElement);
                section.innerHTML = html;
                if (focused) {
                  var first = section.querySelector("button");
                  if (first) { first.focus(); }
                }
              })
              .catch(function () {})
              .then(function () {
                loading = false;
                if (again) { again = false; refresh(); }
              });
          }
          var source = new EventSource("/consent/events");
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
