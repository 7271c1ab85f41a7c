import Transport

/// The status server's requests: the login form and its POST, the JSON endpoints,
/// `/metrics` and the dashboard's files. Every route but the login form and its POST needs
/// the token (`StatusAuth`); `GET /` without it shows the login form. Read-only: only GET
/// and HEAD reach the data, and nothing here changes the node.
struct StatusRouter: Sendable {
    let reader: StatusReader
    let auth: StatusAuth

    static let jsonEndpoints = ["/api/health", "/api/status", "/api/swaps", "/api/limits", "/api/offers", "/api/earnings"]

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let path = String(request.target.prefix { $0 != "?" })
        if path == "/login" {
            switch request.method {
            case .post: return login(request)
            case .get, .head: return Self.page(StatusDashboard.loginPage(failed: false))
            default: return Self.methodNotAllowed("GET, HEAD, POST")
            }
        }
        if path == "/logout", request.method == .post {
            if let id = StatusAuth.cookie(StatusSessions.cookieName, in: request.headers) { auth.sessions.close(id) }
            return Self.redirect(to: "/login", cookie: "\(StatusSessions.cookieName)=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
        }
        guard request.method == .get || request.method == .head else { return Self.methodNotAllowed("GET, HEAD") }
        // The style sheet is public (the login form uses it) and holds nothing of the node.
        if path == "/dashboard.css" { return Self.asset(StatusDashboard.css, type: "text/css; charset=utf-8") }
        guard auth.allows(request) else {
            if path == "/" { return Self.page(StatusDashboard.loginPage(failed: false)) }
            var response = Self.json(.unauthorized, .object([
                "error": .string("unauthorized"),
                "message": .string("send the token of <datadir>/status.token as `Authorization: Bearer <token>`, or log in at /login"),
            ]))
            response.headers.add(name: "WWW-Authenticate", value: "Bearer realm=\"peernode\"")
            return response
        }
        do {
            switch path {
            case "/": return Self.page(StatusDashboard.html)
            case "/dashboard.js": return Self.asset(StatusDashboard.javascript, type: "text/javascript; charset=utf-8")
            case "/metrics":
                return HTTPResponse(status: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"],
                                    body: Array(try await StatusMetrics(reader: reader).render().utf8))
            case "/api/health": return Self.json(.ok, await reader.health().json)
            case "/api/status": return Self.json(.ok, await reader.node().json)
            case "/api/swaps":
                let swaps = try await reader.swaps()
                return Self.json(.ok, .object(["live": .array(swaps.live.map(\.json)), "recent": .array(swaps.recent.map(\.json))]))
            case "/api/limits": return Self.json(.ok, await reader.limits().json)
            case "/api/offers": return Self.json(.ok, await reader.offers().json)
            case "/api/earnings": return Self.json(.ok, try await reader.earnings().json)
            default:
                return Self.json(.notFound, .object(["error": .string("not_found"),
                                                     "message": .string("no such endpoint; see docs/STATUS.md")]))
            }
        } catch {
            return Self.json(.internalServerError, .object(["error": .string("failed"), "message": .string("\(error)")]))
        }
    }

    /// `POST /login` with `token=<hex>`: the right token gets a session cookie and a
    /// redirect to the dashboard; a wrong one the form again with 401.
    private func login(_ request: HTTPRequest) -> HTTPResponse {
        guard let token = StatusAuth.formField("token", in: request.body), auth.token.matches(token) else {
            var response = Self.page(StatusDashboard.loginPage(failed: true))
            response.status = .unauthorized
            return response
        }
        let session = auth.sessions.open()
        return Self.redirect(to: "/", cookie: "\(StatusSessions.cookieName)=\(session); HttpOnly; SameSite=Strict; Path=/; "
                             + "Max-Age=\(auth.sessions.lifetimeSeconds)")
    }

    // MARK: responses

    /// Headers every answer carries: nothing cached, no framing by another site, scripts
    /// and styles only from this server.
    private static func secured(_ headers: HTTPHeaders) -> HTTPHeaders {
        var out = headers
        out.add(name: "Cache-Control", value: "no-store")
        out.add(name: "X-Content-Type-Options", value: "nosniff")
        out.add(name: "X-Frame-Options", value: "DENY")
        out.add(name: "Referrer-Policy", value: "no-referrer")
        out.add(name: "Content-Security-Policy",
                value: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
        return out
    }

    static func json(_ status: HTTPStatus, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: secured(["Content-Type": "application/json"]), body: value.canonicalBytes)
    }

    private static func page(_ html: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: secured(["Content-Type": "text/html; charset=utf-8"]), body: Array(html.utf8))
    }

    private static func asset(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: secured(["Content-Type": type]), body: Array(text.utf8))
    }

    private static func redirect(to location: String, cookie: String) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(code: 303), headers: secured(["Location": location, "Set-Cookie": cookie]))
    }

    private static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = json(.methodNotAllowed, .object(["error": .string("method_not_allowed"),
                                                        "message": .string("the status API is read-only; allowed: \(allowed)")]))
        response.headers.add(name: "Allow", value: allowed)
        return response
    }
}
