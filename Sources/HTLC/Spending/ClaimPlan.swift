/// The amounts of one claim transaction, decided before signing.
public struct ClaimPlan: Sendable, Hashable {
    /// What the destination output receives.
    public let outputValue: Int64
    /// The rest of the lock: lock value − output value.
    public let fee: Int64
    /// How far the output fell below the requested X to pay for this fee rate (0 when X
    /// is paid exactly). The engine reports it to the user.
    public let amountDrop: Int64
    /// The claim's vsize the fee was computed for.
    public let virtualSize: Int
    /// What the destination receives above X: an over-lock's surplus that would have put
    /// the fee above the cap (audit L-9; 0 otherwise).
    public internal(set) var surplus: Int64 = 0
}
