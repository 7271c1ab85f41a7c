/// The swap/1 protocol version number carried in `protocol_version`.
public enum ProtocolVersion {
    public static let current: Int64 = 1
    /// Versions this node speaks (a peer offering another is skipped, or refused with
    /// `unsupported_version`).
    public static let supported: ClosedRange<Int64> = 1...1
}
