import Bitcoin

/// One simulated node as `/v1/getinfo`, `/v1/balance/channels` and `/v1/channels`
/// describe it.
public struct LightningNodeInfo: Sendable, Hashable {
    /// The hub's name for the node (its REST endpoint is chosen by this name).
    public var name: String
    public var alias: String
    /// The secp256k1 identity key that signs its invoices (LND's `identity_pubkey`).
    public var identityKey: PublicKey
    /// Its side of its channel before the commitment pays its fee and anchors (what LND's
    /// `local_balance` and the commitment fee add up to); the reserve is part of it.
    public var balanceMsat: UInt64
    /// The channel's capacity: the balance it was funded with, or more once it received
    /// more (the simulator has one channel per node and no remote side).
    public var capacityMsat: UInt64
    /// What the node must keep on its side and cannot send (LND's `chan_reserve_sat`).
    public var reserveMsat: UInt64
    /// The node funded its channel: it pays the commitment's fee and anchors.
    public var isFunder: Bool
    /// The commitment transaction's weight and fee (LND's `commit_weight`, `commit_fee`;
    /// the funder pays the fee).
    public var commitWeight: UInt64
    public var commitFeeMsat: UInt64
    /// What LND lets it send now (`availableBalance` with its fee buffer: `SimulatedNode`).
    public var spendableMsat: UInt64
    /// Its side as LND reports it (`local_balance`): a funder's less the commitment fee and
    /// the two anchors, which its commitment pays out of its balance.
    public var localBalanceMsat: UInt64
    /// False while taken offline: it neither sends nor receives payments.
    public var isOnline: Bool
}
