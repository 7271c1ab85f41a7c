import HTLC
import Transport

/// Turns `swaps` and `swap_events` rows back into values, refusing anything the schema's
/// checks should have kept out (a hand-edited or damaged file) with `.corrupt`.
enum SwapRows {
    /// Columns: id, role, swap_index, peer, created_at, contract, key_scheme.
    static func record(_ row: SQLiteStatement) throws(StoreError) -> SwapRecord {
        let id = row.string(0)
        guard let role = SwapRole(rawValue: row.string(1)) else {
            throw .corrupt("swap \(id) has an unknown role")
        }
        guard let index = UInt32(exactly: row.int64(2)) else {
            throw .corrupt("swap \(id) has a swap index out of range")
        }
        // An unknown scheme is a newer peernode's swap: guessing would derive wrong keys.
        guard let scheme = Int(exactly: row.int64(6)).flatMap(SwapKeyScheme.init(rawValue:)) else {
            throw .corrupt("swap \(id) has an unknown key scheme \(row.int64(6)); run a newer peernode")
        }
        return SwapRecord(id: id, role: role, swapIndex: index, keyScheme: scheme, peer: row.string(3),
                          createdAt: row.int64(4), contract: try StoredJSON.decode(row.string(5), "the contract of swap \(id)"))
    }

    /// Columns: sequence, kind, data, is_final, at.
    static func event(_ row: SQLiteStatement, swapID: String) throws(StoreError) -> SwapEvent {
        let sequence = row.int64(0)
        return SwapEvent(sequence: sequence, kind: row.string(1),
                         data: try StoredJSON.decode(row.string(2), "event \(sequence) of swap \(swapID)"),
                         isFinal: row.int64(3) != 0, at: row.int64(4))
    }
}
