/// What LND reports of a channel its node funded, in the simulator's anchor channels: the
/// side less the commitment fee (2,500 sat/kw over 1,124 wu and 172 more per HTLC output)
/// and the two 330-sat anchors; what it can send keeps the reserve, the anchors and a buffer
/// paying the commitment with one more HTLC at twice the rate. The numbers are LND's
/// (`input.AnchorCommitWeight`, `input.HTLCWeight`, `lnwallet.CalcFeeBuffer`), written out
/// here apart from the simulator's code.
enum FunderCommitment {
    /// LND's `local_balance`, msat.
    static func localBalance(_ sideMsat: UInt64, htlcs: UInt64 = 0) -> UInt64 {
        sideMsat - (2_500 * (1_124 + 172 * htlcs) / 1_000 + 660) * 1_000
    }

    /// What `availableBalance` lets the node send, msat.
    static func spendable(_ sideMsat: UInt64, reserveMsat: UInt64, htlcs: UInt64 = 0) -> UInt64 {
        sideMsat - reserveMsat - 660_000 - 2 * 2_500 * (1_124 + 172 * (htlcs + 1)) / 1_000 * 1_000
    }
}
