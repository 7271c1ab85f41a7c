/// One input: the outpoint it spends, its scriptSig, nSequence and witness.
public struct TransactionInput: Hashable, Sendable {
    public var previousOutput: OutPoint
    public var scriptSig: Script
    public var sequence: UInt32
    public var witness: Witness

    public init(previousOutput: OutPoint, scriptSig: Script = Script(), sequence: UInt32 = TransactionInput.finalSequence,
                witness: Witness = Witness()) {
        self.previousOutput = previousOutput
        self.scriptSig = scriptSig
        self.sequence = sequence
        self.witness = witness
    }

    /// nSequence that disables nLockTime and relative locks for this input.
    public static let finalSequence: UInt32 = 0xffff_ffff
    /// The highest nSequence that still enables nLockTime (CLTV refunds need it).
    public static let lockTimeEnabledSequence: UInt32 = 0xffff_fffe
    /// The highest nSequence that signals opt-in replacement (BIP125).
    public static let replaceableSequence: UInt32 = 0xffff_fffd
}
