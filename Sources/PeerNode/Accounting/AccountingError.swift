/// Why the report could not be made. The store is left as it was.
public enum AccountingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stored swap's contract or event does not decode into the facts the report needs.
    case unreadableSwap(id: String, why: String)
    /// `--since` is not a UTC date of the form YYYY-MM-DD.
    case badSince(String)

    public var description: String {
        switch self {
        case .unreadableSwap(let id, let why):
            return "swap \(id) cannot be accounted for: \(why); run `peernode swap show \(id)` to see its record"
        case .badSince(let text):
            return "--since \(text) is not a date: give a UTC day as YYYY-MM-DD (for example 2026-12-01)"
        }
    }
}
