import Bitcoin

/// The key the Electrum protocol indexes outputs by: the SHA-256 of the output's
/// scriptPubKey, written in reversed byte order (as a txid is), in hex.
public struct ElectrumScriptHash: Hashable, Sendable, CustomStringConvertible {
    /// The 64 hex characters the server takes and sends.
    public let hex: String

    public init(scriptPubKey: [UInt8]) {
        hex = Array(SHA256.hash(scriptPubKey).reversed()).hex
    }

    /// From a server's notification: 64 hex characters, lower-cased.
    public init?(hex: String) {
        guard let bytes = [UInt8](hex: hex), bytes.count == 32 else { return nil }
        self.hex = bytes.hex
    }

    public var description: String { hex }
}
