extension ChainFollower {
    public struct Configuration: Sendable {
        /// Between polls of the tip and the mempool. Core has no push channel over
        /// JSON-RPC; a few seconds keeps its load negligible.
        public var pollIntervalMilliseconds: UInt64
        /// The first height to scan (a wallet's birthday); nil starts at the backend's tip,
        /// reporting only blocks found after it.
        public var startHeight: Int?
        /// Recent block hashes kept to detect reorgs: the deepest reorg that can be followed.
        public var window: Int
        /// Whether to look into the mempool (getrawmempool + getrawtransaction for each new
        /// txid). On a busy mainnet node the first round fetches the whole mempool.
        public var followsMempool: Bool

        public init(pollIntervalMilliseconds: UInt64 = 2_000, startHeight: Int? = nil, window: Int = 288,
                    followsMempool: Bool = true) {
            self.pollIntervalMilliseconds = pollIntervalMilliseconds
            self.startHeight = startHeight
            self.window = window
            self.followsMempool = followsMempool
        }
    }
}
