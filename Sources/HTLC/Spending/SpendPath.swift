/// Which branch of the contract a transaction spends.
public enum SpendPath: Sendable, Hashable {
    /// The client's path: its key and the preimage, at any time.
    case claim(preimage: [UInt8])
    /// The provider's path: its key, from the timeout height on.
    case refund
}
