import Bitcoin

/// One simulated node as `/v1/getinfo`, `/v1/balance/channels` and `/v1/channels`
/// describe it.
public struct LightningNodeInfo: Sendable, Hashable {
    /// The hub's name for the node (its REST endpoint is chosen by this name).
    public var name: String
    public var alias: String
    /// The secp256k1 identity key that signs its invoices (LND's `identity_pubkey`).
    public var identityKey: PublicKey
    /// Its side of its channel (LND's `local_balance`, which counts the reserve).
    public var balanceMsat: UInt64
    /// The channel's capacity: the balance it was funded with, or more once it received
    /// more (the simulator has one channel per node and no remote side).
    public var capacityMsat: UInt64
    /// What the node must keep on its side and cannot send (LND's `chan_reserve_sat`).
    public var reserveMsat: UInt64
    /// What LND lets it send now: the balance above the reserve.
    public var spendableMsat: UInt64 { balanceMsat > reserveMsat ? balanceMsat - reserveMsat : 0 }
    /// False while taken offline: it neither sends nor receives payments.
    public var isOnline: Bool
}
