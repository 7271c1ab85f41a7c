/// What one LND channel lets the node send in a single HTLC, from what `ListChannels` says
/// of it: LND's own limit (`lnwallet.LightningChannel.availableBalance` with its fee buffer),
/// which its first hop enforces with FAILURE_REASON_INSUFFICIENT_BALANCE.
///
/// The channel reserve is never sent. The channel's funder also pays the commitment, out of
/// its side: `local_balance` is already less the commitment's fee and its anchors, and before
/// an HTLC is added LND keeps a buffer that would pay the commitment, with that HTLC's output
/// and at twice the fee rate (BOLT 2's advice), so a fee rise or the peer's own HTLC still
/// fits. The buffer replaces the current fee, which `local_balance` has already paid:
///
///     spendable = local_balance + commit_fee − reserve − 2 × fee_per_kw × (commit_weight + 172) / 1000
///
/// in whole sats, LND's fee rounding down. A peer-funded channel keeps only the reserve.
public struct LNDChannelBandwidth: Sendable, Hashable {
    /// What a funder's commitment costs it (`commit_fee`, `commit_weight`, `fee_per_kw`).
    public struct Funder: Sendable, Hashable {
        public var commitFeeSat: UInt64
        public var commitWeight: UInt64
        public var feePerKw: UInt64

        public init(commitFeeSat: UInt64, commitWeight: UInt64, feePerKw: UInt64) {
            self.commitFeeSat = commitFeeSat
            self.commitWeight = commitWeight
            self.feePerKw = feePerKw
        }

        /// The fee buffer (`lnwallet.CalcFeeBuffer`): the commitment with one more HTLC
        /// output (`input.HTLCWeight`) at twice the fee rate.
        public var bufferSat: UInt64 {
            let (weight, over) = commitWeight.addingReportingOverflow(Self.htlcWeight)
            let (rate, overRate) = feePerKw.multipliedReportingOverflow(by: 2)
            let (product, overProduct) = rate.multipliedReportingOverflow(by: weight)
            return over || overRate || overProduct ? .max : product / 1_000
        }

        /// The weight one HTLC output adds to a commitment (LND `input.HTLCWeight`).
        public static let htlcWeight: UInt64 = 172
    }

    public var localSat: UInt64
    public var reserveSat: UInt64
    /// Nil when the peer opened the channel.
    public var funder: Funder?

    public init(localSat: UInt64, reserveSat: UInt64, funder: Funder? = nil) {
        self.localSat = localSat
        self.reserveSat = reserveSat
        self.funder = funder
    }

    /// The largest HTLC LND adds to this channel now, sat.
    public var spendableSat: UInt64 {
        var side = localSat
        var kept = reserveSat
        if let funder {
            side = side.addingReportingOverflow(funder.commitFeeSat).overflow ? .max : side + funder.commitFeeSat
            kept = kept.addingReportingOverflow(funder.bufferSat).overflow ? .max : kept + funder.bufferSat
        }
        return side > kept ? side - kept : 0
    }
}
