import Bitcoin
import Transport

/// Where a lock is: its transaction and output index, on the wire as `lock_txid`
/// (display hex, as block explorers and Core show it) and `lock_vout`.
public struct LockReference: Sendable, Hashable {
    public let txid: String
    public let vout: UInt32

    public init(txid: String, vout: UInt32) {
        self.txid = txid
        self.vout = vout
    }

    /// Reads `lock_txid` and `lock_vout` when present (both or neither).
    static func read(from fields: FieldReader) throws(OffersError) -> LockReference? {
        guard fields.has("lock_txid") || fields.has("lock_vout") else { return nil }
        let txid = try fields.hex("lock_txid", byteCount: 32)
        return LockReference(txid: txid.hex, vout: try fields.uint32("lock_vout"))
    }

    func write(into members: inout [String: JSONValue]) {
        members["lock_txid"] = .string(txid)
        members["lock_vout"] = .integer(vout)
    }
}
