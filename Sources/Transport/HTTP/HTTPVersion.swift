/// The protocol version of a message. Only major version 1 is spoken; the minor version
/// decides the keep-alive default and whether chunked framing may be sent.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// HTTP/1.1 and later 1.x keep connections open unless told otherwise (RFC 9112 9.3).
    var keepsAliveByDefault: Bool { major == 1 && minor >= 1 }

    public var description: String { "HTTP/\(major).\(minor)" }
}
