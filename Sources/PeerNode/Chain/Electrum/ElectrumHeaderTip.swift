import Bitcoin
import Transport

/// The server's best block: its height and its raw 80-byte header.
public struct ElectrumHeaderTip: Sendable, Equatable {
    public let height: Int
    public let header: [UInt8]

    /// The block hash, as RPCs print it.
    public var blockHash: String { Array(SHA256.doubleHash(header).reversed()).hex }

    /// From `{"height": h, "hex": "<160 hex>"}` (protocol 1.4+).
    init(decoding value: JSONValue, method: String) throws(ElectrumError) {
        guard let height = value["height"]?.int64Value, height >= 0, let height = Int(exactly: height) else {
            throw .unexpectedResult(method: method, reason: "no height")
        }
        self.height = height
        header = try ElectrumDecoding.header(value["hex"], method: method)
    }
}
