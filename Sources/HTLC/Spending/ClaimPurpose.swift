/// Whom a claim pays, which decides whether a fee bump may take from the amount.
public enum ClaimPurpose: String, Sendable, Hashable, CaseIterable {
    /// A payment to a contact: the contact must receive exactly X, except near the timeout,
    /// where a smaller X that confirms beats a refund.
    case payContact
    /// A swap-out to the client's own address: the client may always trade X for fee.
    case swapOut
}
