import Bitcoin

/// One node inside the network's state: identity, money, and its own invoice and
/// payment books (an LND node keeps both per node, keyed by payment hash).
struct SimulatedNode: Sendable {
    let name: String
    let alias: String
    let key: PrivateKey
    var balanceMsat: UInt64
    /// The balance the channel was opened with: its reserve is a share of it.
    var fundedCapacityMsat: UInt64
    var isOnline: Bool
    /// Hub control (`hub_ln_hold`): an HTLC reaching one of its plain invoices is held as at
    /// a hold invoice, until released or cancelled by LND's hold-expiry rule.
    var holdsHTLCs = false
    var invoices: [[UInt8]: InvoiceEntry] = [:]
    var payments: [[UInt8]: PaymentEntry] = [:]
    /// LND's add, settle and payment indexes start at 1 and only grow.
    var nextAddIndex: UInt64 = 1
    var nextSettleIndex: UInt64 = 1
    var nextPaymentIndex: UInt64 = 1
    var nextAttemptID: UInt64 = 1

    var info: LightningNodeInfo {
        LightningNodeInfo(name: name, alias: alias, identityKey: key.publicKey, balanceMsat: balanceMsat,
                          capacityMsat: max(fundedCapacityMsat, balanceMsat), reserveMsat: reserveMsat,
                          isFunder: isFunder, commitWeight: commitWeight, commitFeeMsat: commitFeeMsat,
                          spendableMsat: spendableMsat, localBalanceMsat: localBalanceMsat, isOnline: isOnline)
    }

    var reserveMsat: UInt64 { Self.reserveMsat(capacityMsat: fundedCapacityMsat) }

    // MARK: the commitment, as LND's anchor channels keep it

    /// The node funded its channel, so it pays the commitment's fee and its two anchors: it
    /// was opened with the node's balance. A node opened with nothing was funded by its peer.
    var isFunder: Bool { fundedCapacityMsat > 0 }

    /// HTLCs on the node's channel now, either way, that get an output of their own (LND
    /// trims those under the dust limit): what the node pays and what is held for it.
    var commitmentHTLCs: UInt64 {
        let dust = Self.dustLimitSat * 1_000
        let paying = payments.values.filter { $0.payment.status == .inFlight && $0.payment.valueMsat >= dust }.count
        let held = invoices.values.filter { ($0.held?.amountMsat ?? 0) >= dust }.count
        return UInt64(paying + held)
    }

    /// The commitment transaction's weight (LND's `commit_weight`): an anchor commitment
    /// (`input.AnchorCommitWeight`) and one HTLC output (`input.HTLCWeight`) per HTLC.
    var commitWeight: UInt64 { Self.anchorCommitWeight + Self.htlcWeight * commitmentHTLCs }

    /// The commitment's fee, whole sats as on chain (LND's `commit_fee`), paid by whichever
    /// side funded the channel.
    var commitFeeMsat: UInt64 { Self.fee(perKw: Self.commitFeePerKw, weight: commitWeight) }

    /// Its side as LND reports it (`local_balance`): the funder's commitment pays its fee and
    /// the two anchors out of it.
    var localBalanceMsat: UInt64 {
        let paid = isFunder ? commitFeeMsat + Self.anchorsMsat : 0
        return balanceMsat > paid ? balanceMsat - paid : 0
    }

    /// The most the node can send now, as LND's `availableBalance` with its fee buffer says:
    /// its side less the channel reserve; a funder also keeps its anchors and a buffer that
    /// pays the commitment, with one more HTLC, at twice the fee rate (BOLT 2). A payment
    /// above it is refused at the first hop (FAILURE_REASON_INSUFFICIENT_BALANCE).
    var spendableMsat: UInt64 {
        var kept = reserveMsat
        if isFunder {
            kept += Self.anchorsMsat + Self.fee(perKw: 2 * Self.commitFeePerKw, weight: commitWeight + Self.htlcWeight)
        }
        return balanceMsat > kept ? balanceMsat - kept : 0
    }

    /// The commitment fee rate, sat per 1,000 weight units: the most LND lets an anchor
    /// channel's funder pay by default (`max-commit-fee-rate-anchors`, 10 sat/vB), what it
    /// pays whenever the chain's fees are at or above it. The strictest of LND's defaults.
    static let commitFeePerKw: UInt64 = 2_500
    static let anchorCommitWeight: UInt64 = 1_124
    static let htlcWeight: UInt64 = 172
    /// Two anchor outputs of 330 sat, paid by the funder.
    static let anchorsMsat: UInt64 = 660_000

    /// LND's `FeeForWeight`: whole sats, rounded down; in msat.
    static func fee(perKw: UInt64, weight: UInt64) -> UInt64 { perKw * weight / 1_000 * 1_000 }

    /// LND's default channel reserve (`DefaultReserve`): 1% of the capacity in whole sats,
    /// never under the dust limit `DustLimitUnknownWitness` (354 sat) that BOLT 2 requires
    /// a reserve to clear. A channel keeps it so that cheating always costs something.
    static func reserveMsat(capacityMsat: UInt64) -> UInt64 {
        max(capacityMsat / 1_000 / 100, dustLimitSat) * 1_000
    }

    static let dustLimitSat: UInt64 = 354

    /// The node's identity key, derived from its name so that a hub restarted with the
    /// same node names has the same node ids (regtest only: anyone can derive it).
    /// A hash outside the curve order (odds about 2^-128) moves on to the next counter.
    static func identityKey(for name: String) -> PrivateKey {
        var counter = 0
        while true {
            let seed = SHA256.hash(Array("peernode-regtest lightning node \(counter):\(name)".utf8))
            if let key = try? PrivateKey(seed) { return key }
            counter += 1
        }
    }
}

/// An invoice with what only the payee knows: who paid a held HTLC and at what fee,
/// so a cancel can refund exactly that.
struct InvoiceEntry: Sendable {
    var invoice: SimulatedInvoice
    var held: HeldHTLC?
    var subscribers: [AsyncStream<SimulatedInvoice>.Continuation] = []
}

/// The payer side of an HTLC accepted at a hold invoice.
struct HeldHTLC: Sendable, Hashable {
    let payer: String
    let amountMsat: UInt64
    let feeMsat: UInt64
    /// Index of the HTLC in `SimulatedInvoice.htlcs`.
    let htlcIndex: Int

    var lockedMsat: UInt64 { amountMsat + feeMsat }
}

struct PaymentEntry: Sendable {
    var payment: SimulatedPayment
    var subscribers: [AsyncStream<SimulatedPayment>.Continuation] = []
}
