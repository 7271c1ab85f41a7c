/// Why a contact was refused before anything was written.
public enum ContactError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a pubky (`Pubky(parsing:)`'s reason).
    case invalidPubky(String)
    case invalidName(String)
    case invalidHost(String)
    case invalidPort(Int)

    public var description: String {
        switch self {
        case .invalidPubky(let reason): return "not a valid pubky: \(reason)"
        case .invalidName(let reason): return "not a valid contact name: \(reason)"
        case .invalidHost(let reason): return "not a valid host: \(reason)"
        case .invalidPort(let port): return "port \(port) is outside 1...65535"
        }
    }
}
