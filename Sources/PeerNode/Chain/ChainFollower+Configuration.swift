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
        /// Mempool transactions kept after they are examined, so a rescan (a new watch looking
        /// back) matches them again without fetching them (audit L-6). Beyond it, the rest
        /// are fetched again after a rescan. 50,000 is a full mainnet mempool's order of
        /// magnitude and tens of MB at most.
        public var mempoolCacheLimit: Int

        public init(pollIntervalMilliseconds: UInt64 = 2_000, startHeight: Int? = nil, window: Int = 288,
                    followsMempool: Bool = true, mempoolCacheLimit: Int = 50_000) {
            self.pollIntervalMilliseconds = pollIntervalMilliseconds
            self.startHeight = startHeight
            self.window = window
            self.followsMempool = followsMempool
            self.mempoolCacheLimit = max(0, mempoolCacheLimit)
        }
    }
}
