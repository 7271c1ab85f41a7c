import Bitcoin

/// What an Electrum server already knows about scripts the node just named to it
/// (`ChainBackend.watch(scripts:)`): which of them have any transaction, and the lowest
/// block height holding one. Bitcoin Core reports nothing: it shows every block whole.
public struct ScriptHistorySummary: Sendable, Equatable {
    /// The named scripts with at least one transaction, confirmed or in the mempool.
    public var used: Set<Script>
    /// The lowest height at which one of them has a confirmed transaction.
    public var lowestConfirmedHeight: Int?

    public init(used: Set<Script> = [], lowestConfirmedHeight: Int? = nil) {
        self.used = used
        self.lowestConfirmedHeight = lowestConfirmedHeight
    }

    public static let none = ScriptHistorySummary()
}
