import Bitcoin

/// One simulated node as `/v1/getinfo` and `/v1/balance/channels` describe it.
public struct LightningNodeInfo: Sendable, Hashable {
    /// The hub's name for the node (its REST endpoint is chosen by this name).
    public var name: String
    public var alias: String
    /// The secp256k1 identity key that signs its invoices (LND's `identity_pubkey`).
    public var identityKey: PublicKey
    /// What it can spend now (LND's channel `local_balance`).
    public var balanceMsat: UInt64
    /// False while taken offline: it neither sends nor receives payments.
    public var isOnline: Bool
}
