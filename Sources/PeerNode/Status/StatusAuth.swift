import Transport

/// Who may read the status API: a request carrying the token as `Authorization: Bearer`
/// (scripts, Prometheus), or the cookie of a live login session (the dashboard in a
/// browser). Nothing else is accepted: no token in a query string, where it would end up
/// in a browser's history and in proxy logs.
struct StatusAuth: Sendable {
    let token: StatusToken
    let sessions: StatusSessions

    func allows(_ request: HTTPRequest) -> Bool {
        if let bearer = Self.bearer(request.headers) { return token.matches(bearer) }
        if let session = Self.cookie(StatusSessions.cookieName, in: request.headers) { return sessions.isValid(session) }
        return false
    }

    /// The credentials of `Authorization: Bearer <token>`, the scheme case-insensitive.
    static func bearer(_ headers: HTTPHeaders) -> String? {
        guard let value = headers.first(name: "authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].statusTrimmed(" ")
    }

    /// The value of cookie `name` across every Cookie header.
    static func cookie(_ name: String, in headers: HTTPHeaders) -> String? {
        for line in headers["cookie"] {
            for pair in line.split(separator: ";") {
                let trimmed = pair.statusTrimmed(" ")
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }

    /// `token=<hex>` from the login form's urlencoded body (the only field it sends).
    static func formField(_ name: String, in body: [UInt8]) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name {
                // A hex token needs no decoding beyond '+' for spaces a user might paste.
                return String(parts[1].map { $0 == "+" ? " " : $0 }).statusTrimmed(" ")
            }
        }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing `character`s.
    func statusTrimmed(_ character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}
