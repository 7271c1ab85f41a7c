/// Where every millisatoshi of the simulated network is, for conservation checks.
///
/// Money enters and leaves only by funding (`addNode`, `setBalance`); a payment only
/// moves it between a payer, the HTLCs in flight and the payee, and the routing fee to
/// the network. So `nodes` summed + `inFlightMsat` + `feesCollectedMsat` equals
/// `fundedMsat` at every moment: `isConserved`.
public struct LightningBalances: Sendable, Hashable {
    /// Spendable balance per node name.
    public var nodes: [String: UInt64]
    /// Debited from payers for HTLCs accepted but not yet settled or cancelled:
    /// amount plus the routing fee reserved with it.
    public var inFlightMsat: UInt64
    /// Routing fees earned by the network on settled payments.
    public var feesCollectedMsat: UInt64
    /// Net external funding: every balance given, minus every balance taken away.
    public var fundedMsat: UInt64

    /// Everything the network holds right now (wide, so that a bug shows as a mismatch
    /// rather than a trap).
    public var totalMsat: UInt64 {
        var total = inFlightMsat.addingReportingOverflow(feesCollectedMsat).partialValue
        for balance in nodes.values { total = total.addingReportingOverflow(balance).partialValue }
        return total
    }

    public var isConserved: Bool { totalMsat == fundedMsat }
}
