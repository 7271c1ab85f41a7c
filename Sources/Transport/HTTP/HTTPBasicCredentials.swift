/// A user and password for HTTP Basic authentication (RFC 7617), as Bitcoin Core's
/// JSON-RPC expects: from `rpcuser`/`rpcpassword` or from its `.cookie` file.
///
/// Deliberately not `CustomStringConvertible`: printing it would print the password.
public struct HTTPBasicCredentials: Sendable, Equatable {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Reads Bitcoin Core's cookie file content, `__cookie__:<hex>`: the user is everything
    /// before the first colon (RFC 7617 forbids colons in user ids), the password the rest.
    /// A trailing line ending is ignored. Nil when there is no colon.
    public init?(cookie: String) {
        var text = Substring(cookie)
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    /// The `Authorization` field value: `Basic base64(user:password)`, UTF-8 encoded.
    public var authorizationValue: String {
        "Basic " + HTTPBase64.encode(Array("\(user):\(password)".utf8))
    }
}

extension HTTPHeaders {
    /// Sets `Authorization` to these Basic credentials, replacing any earlier value.
    public mutating func setBasicAuthorization(_ credentials: HTTPBasicCredentials) {
        replaceOrAdd(name: "Authorization", value: credentials.authorizationValue)
    }
}
