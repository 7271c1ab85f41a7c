/// One `key=value` setting and where it came from, before it is typed.
public struct ConfigEntry: Equatable, Sendable {
    public let key: String
    public let value: String
    /// `peernode.conf line 7` or `command line`, for error messages.
    public let origin: String

    public init(key: String, value: String, origin: String) {
        self.key = key
        self.value = value
        self.origin = origin
    }

    public static let commandLine = "command line"
}
