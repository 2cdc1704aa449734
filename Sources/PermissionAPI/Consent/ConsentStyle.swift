/// The consent pages' stylesheet (`/consent/static/style.css`): the iOS alert as a centred
/// rounded card on a dimmed backdrop, its buttons stacked full width with hairline
/// separators in system blue (the darker shade iOS uses with Increase Contrast, so that text
/// keeps a 4.5:1 contrast, WCAG 1.4.3); Settings as grouped inset lists; the system font; dark mode by
/// `prefers-color-scheme`, whose colours keep the same contrast (the current navigation link's
/// blue on its own lighter fill, white on the Save button's blue); a phone-sized and a
/// desktop-sized layout; long and right-to-left text wraps; visible focus; controls at least
/// 44 px high.
enum ConsentStyle {
    static let css = #"""
        :root {
          color-scheme: light dark;
          --background: #f2f2f7;
          --grouped: #ffffff;
          --label: #000000;
          --secondary: #636366;
          --separator: rgba(60, 60, 67, 0.29);
          --blue: #0058d0;
          --red: #ff3b30;
          --green: #34c759;
          --fill: rgba(120, 120, 128, 0.16);
          /* The current navigation link's background: light enough under its blue text in both
             modes (dark mode's fill would leave 3.8:1). */
          --selected: rgba(120, 120, 128, 0.16);
          /* A filled button's background under white text. */
          --button: #0058d0;
          --alert: rgba(242, 242, 242, 0.97);
          --backdrop: rgba(0, 0, 0, 0.4);
          --focus: #0040dd;
          --radius: 10px;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --background: #000000;
            --grouped: #1c1c1e;
            --label: #ffffff;
            --secondary: #aeaeb2;
            --separator: rgba(84, 84, 88, 0.65);
            --blue: #409cff;
            --red: #ff453a;
            --green: #30d158;
            --fill: rgba(120, 120, 128, 0.36);
            --button: #0062e0;
            --alert: rgba(44, 44, 46, 0.97);
            --backdrop: rgba(0, 0, 0, 0.6);
            --focus: #409cff;
          }
        }
        *, *::before, *::after { box-sizing: border-box; }
        html {
          font-family: -apple-system, BlinkMacSystemFont, "SF Pro Text", "Segoe UI", Roboto, "Helvetica Neue", Arial,
            "Noto Sans", "Liberation Sans", sans-serif;
          font-size: 17px;
          line-height: 1.3;
          -webkit-text-size-adjust: 100%;
          text-size-adjust: 100%;
        }
        body {
          margin: 0;
          min-height: 100vh;
          background: var(--background);
          color: var(--label);
          overflow-wrap: anywhere;
        }
        a { color: var(--blue); }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        nav {
          display: flex;
          flex-wrap: wrap;
          align-items: center;
          gap: 4px 2px;
          padding: 8px max(8px, env(safe-area-inset-left));
          background: var(--grouped);
          border-bottom: 0.5px solid var(--separator);
        }
        nav a, nav button {
          display: inline-flex;
          align-items: center;
          min-height: 44px;
          padding: 0 10px;
          border-radius: 8px;
          color: var(--blue);
          text-decoration: none;
          font: inherit;
        }
        nav a[aria-current="page"] { font-weight: 600; background: var(--selected); }
        nav form { margin: 0 0 0 auto; }
        nav button { border: 0; background: transparent; cursor: pointer; }
        main { max-width: 680px; margin: 0 auto; padding: 16px 16px 48px; }
        h1 { font-size: 34px; line-height: 41px; font-weight: 700; margin: 8px 0 4px; }
        h2 { font-size: 13px; font-weight: 400; text-transform: uppercase; color: var(--secondary); margin: 28px 16px 6px; }
        p.user { color: var(--secondary); margin: 0 0 16px; }
        #flash {
          margin: 12px 0;
          padding: 12px 16px;
          border-radius: var(--radius);
          background: var(--grouped);
          border-left: 4px solid var(--green);
        }
        #flash.error { border-left-color: var(--red); }
        /* The session's end: an empty alert region until the script fills it in. */
        #session-warning-text:empty { margin: 0; }
        #session-warning-text:not(:empty) {
          margin: 12px 0 0;
          padding: 12px 16px;
          border-radius: var(--radius) var(--radius) 0 0;
          background: var(--grouped);
          border-left: 4px solid var(--red);
        }
        #session-warning-actions {
          margin: 0 0 12px;
          padding: 0 16px 12px;
          border-radius: 0 0 var(--radius) var(--radius);
          background: var(--grouped);
          border-left: 4px solid var(--red);
        }
        #session-warning-actions[hidden] { display: none; }
        footer#session {
          max-width: 680px;
          margin: 0 auto;
          padding: 0 16px 32px;
          color: var(--secondary);
          display: flex;
          flex-wrap: wrap;
          align-items: center;
          gap: 4px 12px;
        }
        footer#session p { margin: 0; }
        form.extend { margin: 0; }
        form.extend button {
          min-height: 44px;
          padding: 0 10px;
          border: 0;
          border-radius: 8px;
          background: transparent;
          color: var(--blue);
          font: inherit;
          cursor: pointer;
        }
        #session-warning-actions form.extend button { padding: 0; }
        #no-prompts, .empty { color: var(--secondary); text-align: center; padding: 24px 16px; }
        /* Read by screen readers, not shown: the announcement of prompts that appeared. */
        .visually-hidden {
          position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
          clip: rect(0 0 0 0); white-space: nowrap; border: 0;
        }

        /* The alert: a centred card on a dimmed backdrop, as iOS shows it over the app. */
        #prompts {
          display: flex;
          flex-direction: column;
          align-items: center;
          gap: 24px;
        }
        #prompts:has(.alert) {
          margin: 0 -16px;
          padding: 32px 16px;
          background: var(--backdrop);
          border-radius: 14px;
        }
        .alert {
          width: 270px;
          max-width: 100%;
          border-radius: 14px;
          background: var(--alert);
          text-align: center;
          overflow: hidden;
          box-shadow: 0 8px 32px rgba(0, 0, 0, 0.25);
        }
        .alert-title { font-size: 17px; line-height: 22px; font-weight: 600; margin: 0; padding: 19px 16px 2px; color: var(--label); text-transform: none; }
        .alert-message { font-size: 13px; line-height: 16px; margin: 0; padding: 2px 16px 19px; white-space: pre-line; }
        .alert-message:has(+ .alert-note) { padding-bottom: 8px; }
        .alert-note { font-size: 13px; line-height: 16px; margin: 0; padding: 0 16px 19px; color: var(--secondary); }
        .alert-actions { margin: 0; display: flex; flex-direction: column; }
        .alert-actions button {
          display: block;
          width: 100%;
          min-height: 44px;
          padding: 11px 8px;
          border: 0;
          border-top: 0.5px solid var(--separator);
          background: transparent;
          color: var(--blue);
          font: inherit;
          font-size: 17px;
          font-weight: 400;
          cursor: pointer;
        }
        .alert-actions button.preferred { font-weight: 600; }
        .alert-actions button:hover { background: var(--fill); }
        .alert-actions button:focus-visible { outline-offset: -3px; }

        /* Settings: grouped inset lists. */
        #location-services, .app-setting {
          background: var(--grouped);
          border-radius: var(--radius);
          margin: 0 0 12px;
        }
        #location-services button {
          display: flex;
          align-items: center;
          gap: 12px;
          width: 100%;
          min-height: 44px;
          padding: 11px 16px;
          border: 0;
          border-radius: var(--radius);
          background: transparent;
          color: var(--label);
          font: inherit;
          text-align: start;
          cursor: pointer;
        }
        .switch-label { flex: 1; }
        .switch-state { color: var(--secondary); }
        .switch {
          flex: none;
          position: relative;
          width: 51px;
          height: 31px;
          border-radius: 16px;
          background: var(--fill);
          transition: background 0.2s;
        }
        .switch::after {
          content: "";
          position: absolute;
          top: 2px;
          left: 2px;
          width: 27px;
          height: 27px;
          border-radius: 50%;
          background: #ffffff;
          box-shadow: 0 3px 8px rgba(0, 0, 0, 0.15);
          transition: transform 0.2s;
        }
        button[aria-pressed="true"] .switch { background: var(--green); }
        button[aria-pressed="true"] .switch::after { transform: translateX(20px); }
        [dir="rtl"] .switch::after { left: auto; right: 2px; }
        [dir="rtl"] button[aria-pressed="true"] .switch::after { transform: translateX(-20px); }
        p.note { color: var(--secondary); font-size: 13px; margin: 0 16px 12px; }
        .service h2 { margin-top: 24px; }
        .app-setting fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
        .app-setting legend {
          float: left;
          width: 100%;
          padding: 11px 16px;
          font-weight: 600;
          border-bottom: 0.5px solid var(--separator);
        }
        .app-setting .option {
          clear: both;
          display: flex;
          align-items: center;
          min-height: 44px;
          margin-inline-start: 16px;
          border-bottom: 0.5px solid var(--separator);
        }
        .app-setting .option:last-of-type { border-bottom: 0; }
        .app-setting input[type="radio"] { width: 22px; height: 22px; margin: 0 12px 0 0; accent-color: var(--blue); flex: none; }
        .app-setting label { flex: 1; padding: 11px 16px 11px 0; cursor: pointer; }
        .app-setting .actions { clear: both; padding: 8px 16px 12px; text-align: end; border-top: 0.5px solid var(--separator); }
        .app-setting button.save {
          min-height: 44px;
          min-width: 88px;
          padding: 0 16px;
          border: 0;
          border-radius: 8px;
          background: var(--button);
          color: #ffffff;
          font: inherit;
          cursor: pointer;
        }
        .app-setting[data-restricted="true"] label, .app-setting[data-restricted="true"] legend { color: var(--secondary); }
        .app-setting button.save:disabled { opacity: 0.4; cursor: default; }
        p.restricted { clear: both; margin: 0; padding: 8px 16px 12px; font-size: 13px; color: var(--secondary); }

        /* History: a grouped list, newest first. */
        #history { list-style: none; margin: 0; padding: 0; background: var(--grouped); border-radius: var(--radius); }
        #history li { padding: 11px 16px; border-bottom: 0.5px solid var(--separator); }
        #history li:last-child { border-bottom: 0; }
        #history time { display: block; font-size: 13px; color: var(--secondary); }
        #history .what { font-weight: 600; }
        #history .detail { display: block; font-size: 15px; color: var(--secondary); }
        #history-older, #download-data { display: inline-flex; align-items: center; min-height: 44px; margin: 12px 16px; }

        @media (max-width: 480px) {
          nav a, nav button { padding: 0 8px; font-size: 15px; }
          h1 { font-size: 30px; line-height: 36px; }
        }
        @media (min-width: 768px) {
          main { padding-top: 32px; }
          #prompts:has(.alert) { margin: 0; padding: 48px 24px; }
        }
        """#
}
