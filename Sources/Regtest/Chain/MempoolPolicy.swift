/// The relay policy the hub's mempool applies. Defaults follow the 1 sat/vB relay
/// floor; Core v31 itself defaults to 0.1 sat/vB (`-minrelaytxfee=0.000001`), which
/// `coreV31Defaults` reproduces for callers that want Core's exact numbers.
public struct MempoolPolicy: Equatable, Sendable {
    /// Below this fee rate (sat/kvB) a transaction is `min relay fee not met`.
    public var minRelayFeeRate: Int64
    /// What a replacement must add per kvB of its own size over the fees it evicts.
    public var incrementalRelayFeeRate: Int64
    /// Core's `-dustrelayfee`, from which the dust threshold of an output is derived.
    public var dustRelayFeeRate: Int64
    /// `sendrawtransaction`/`testmempoolaccept`'s default `maxfeerate` (sat/kvB; 0 = no cap).
    public var defaultMaxFeeRate: Int64
    /// Core v31's `-limitclustercount`: at most this many transactions in one cluster (a
    /// set of mempool transactions connected by spending one another's outputs).
    public var clusterCountLimit: Int = 64
    /// Core v31's `-limitclustersize` (101 kvB), enforced as 4 x that in weight units summed
    /// over the cluster, never as per-transaction vbytes rounded up.
    public var clusterSizeLimitVBytes: Int = 101_000

    public init(minRelayFeeRate: Int64 = 1_000, incrementalRelayFeeRate: Int64 = 1_000,
                dustRelayFeeRate: Int64 = 3_000, defaultMaxFeeRate: Int64 = 10_000_000) {
        self.minRelayFeeRate = minRelayFeeRate
        self.incrementalRelayFeeRate = incrementalRelayFeeRate
        self.dustRelayFeeRate = dustRelayFeeRate
        self.defaultMaxFeeRate = defaultMaxFeeRate
    }

    /// Bitcoin Core v31's defaults (0.1 sat/vB relay and increment, 3 sat/vB dust, 0.10 BTC/kvB cap).
    public static let coreV31Defaults = MempoolPolicy(minRelayFeeRate: 100, incrementalRelayFeeRate: 100)
}
