/// The swap index high-water mark, kept in a small file beside the seed, outside the
/// database (audit H-5): no index at or above it was ever handed out.
///
/// The database's counter alone cannot promise an index is never handed out twice: a
/// database restored from a stale backup, or created anew after a loss, starts below
/// indexes already used, and a reused index reuses a preimage the chain (or a provider)
/// already knows. So the store writes this file, and syncs it, before it hands out an
/// index at or above the mark, and on every start raises its counter to the mark.
///
/// The mark moves in steps of `step`, so the file is written once per `step` swaps. Every
/// start skips the rest of the current step (the database cannot tell whether it is the
/// newest copy, the file can only tell it is not older than the last step), which leaves
/// runs of unused indexes shorter than `step`: `step` is the recovery scanner's default
/// gap limit so a scan still walks across them.
///
/// Format: the mark in ASCII decimal and a newline (`"300\n"`), mode 0600, replaced
/// atomically (write a temporary file, sync, rename, sync the directory).
public struct SwapIndexMark: Sendable, Equatable {
    /// The file's name in the data directory.
    public static let fileName = "swap_index_mark"
    /// How far the mark moves ahead of the index that reached it.
    public static let step: UInt64 = 100
    /// One past the highest index the counter can hold (`swap_index_counter`'s bound).
    static let limit: UInt64 = 1 << 32

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The mark to write before handing out `index`: the next multiple of `step` above it.
    static func mark(covering index: UInt64) -> UInt64 {
        min(limit, (index / step + 1) * step)
    }

    /// The stored mark; nil when there is no file (a node made before the mark existed,
    /// or a data directory restored with the seed alone).
    func read() throws(StoreError) -> UInt64? {
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 64)
        } catch {
            if error.isMissing { return nil }
            throw .database(operation: "read the swap index mark", message: error.description)
        }
        var text = bytes
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        guard !text.isEmpty, text.count <= 19, text.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = UInt64(String(decoding: text, as: UTF8.self)), value <= Self.limit else {
            // Guessing would risk handing out a used index: the node stops until a person looks.
            throw .corrupt("the swap index mark \(path) must hold one decimal number; restore it from a backup of the "
                           + "data directory, or write a number above every swap index this seed used (see docs/RECOVERY.md)")
        }
        return value
    }

    /// Replaces the file with `value`, synced to disk when this returns.
    func write(_ value: UInt64) throws(StoreError) {
        do {
            try PosixFile.replace(path, bytes: Array("\(value)\n".utf8), mode: 0o600)
        } catch {
            throw .database(operation: "write the swap index mark", message: error.description)
        }
    }
}
