/// Tells the blocks a swap engine has not acted on yet from those a rescan reports again.
///
/// `ChainFollower.rescan` walks old blocks once more so that watches see their
/// transactions, and reports each block again with them. An engine acts on a block by
/// rebroadcasting, bumping or checking timeouts; doing that once per replayed block would
/// rebroadcast a claim or bump a refund (paying the miners more each time) for blocks that
/// are no news. A block at or below the newest one let through is a replay; a disconnection
/// lowers the mark, so the block that replaces it is news.
struct NewBlockFilter: Sendable {
    private(set) var newestHeight: Int?

    init(newestHeight: Int? = nil) {
        self.newestHeight = newestHeight
    }

    /// Whether `tip`, just connected, is a block not seen before; remembers it if so.
    mutating func admit(_ tip: ChainTip) -> Bool {
        if let newestHeight, tip.height <= newestHeight { return false }
        newestHeight = tip.height
        return true
    }

    /// `tip` left the chain: the block connected at its height next is a new one.
    mutating func disconnected(_ tip: ChainTip) {
        newestHeight = min(newestHeight ?? tip.height, tip.height - 1)
    }
}
