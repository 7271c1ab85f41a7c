/// The dashboard's files, served by `StatusRouter`: one static page, its style sheet and
/// its script (`StatusDashboard+HTML`, `+CSS`, `+JavaScript`), kept as text in the
/// repository with no build step and nothing from another site. The script reads only the
/// status API, with the session cookie the login form set, and polls it every few seconds.
enum StatusDashboard {
    /// The login form: the browser cannot send a bearer header on a page load, so the
    /// token is posted once and traded for an HttpOnly session cookie.
    static func loginPage(failed: Bool) -> String {
        let message = failed
            ? #"<p class="error" role="alert">That is not the token in status.token. Try again.</p>"#
            : ""
        return #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>peernode: log in</title>
        <link rel="stylesheet" href="/dashboard.css">
        <link rel="icon" href="data:,">
        </head>
        <body class="login">
        <main>
        <h1>peernode</h1>
        <p>Paste the token from <code>&lt;datadir&gt;/status.token</code>.</p>
        """# + message + #"""
        <form method="post" action="/login">
        <input id="token" name="token" type="password" autocomplete="current-password" required placeholder="64 hex digits">
        <button type="submit">Log in</button>
        </form>
        </main>
        </body>
        </html>
        """#
    }
}
