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
                          isOnline: isOnline)
    }

    var reserveMsat: UInt64 { Self.reserveMsat(capacityMsat: fundedCapacityMsat) }

    /// The node cannot send what would take its side below this.
    var spendableMsat: UInt64 { balanceMsat > reserveMsat ? balanceMsat - reserveMsat : 0 }

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
