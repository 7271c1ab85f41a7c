/// Why bytes are not a macaroon LND would accept, worded for the person who chose the file.
public enum MacaroonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not the binary V2 format (LND writes only that): the first byte is not 2.
    case notVersion2(firstByte: UInt8?)
    /// The field list ends early, has a field out of order or a length past the end.
    case malformed(String)
    /// The identifier is not LND's (bakery version 3 with a protobuf `MacaroonId`).
    case notLNDIdentifier(String)

    public var description: String {
        switch self {
        case .notVersion2(let byte):
            let seen = byte.map { "first byte \($0)" } ?? "an empty file"
            return "not a binary V2 macaroon (\(seen), expected 2): give the .macaroon file LND wrote, not its hex or base64"
        case .malformed(let why):
            return "not a well-formed V2 macaroon: \(why)"
        case .notLNDIdentifier(let why):
            return "not an LND macaroon: its identifier \(why)"
        }
    }
}
