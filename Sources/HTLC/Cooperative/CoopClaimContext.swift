import Bitcoin

/// What both sides of a cooperative claim derive from the swap alone: the lock it spends
/// and the BIP327 key aggregation that signs for the lock's output key, that is
/// KeyAgg(provider, client) with the contract's x-only Taproot tweak applied.
public struct CoopClaimContext: Sendable, Hashable {
    public let contract: TaprootSwapContract
    public let lock: LockOutput
    /// KeyAgg(provider, client) tweaked by TapTweak(P || merkle root): its x-only key is
    /// the contract's output key.
    public let keyAggregation: MuSig2KeyAggregation

    /// Refuses a contract without a key path, or one whose roles are not a reverse swap's.
    public init(contract: SwapContract, lock: LockOutput) throws(CoopClaimError) {
        guard case .taprootBoltz(let taproot) = contract else { throw .noKeyPath }
        guard taproot.terms.roles == .reverse else { throw .notReverseSwap }
        let terms = taproot.terms
        keyAggregation = try CoopClaimError.wrapping {
            let untweaked = try MuSig2KeyAggregation(publicKeys: [terms.providerPublicKey, terms.clientPublicKey])
            let tweak = try TaprootTweak.tweak(internalKey: untweaked.xOnlyPublicKey, merkleRoot: taproot.tree.merkleRoot)
            return try untweaked.tweaked(by: tweak, xOnly: true)
        }
        self.contract = taproot
        self.lock = lock
    }

    /// The output the lock is: what the sighash commits to as the spent output.
    public var spentOutput: TransactionOutput { TransactionOutput(value: lock.value, scriptPubKey: contract.scriptPubKey) }

    /// The BIP341 key-path sighash (SIGHASH_DEFAULT, input 0, no annex) of `transaction`,
    /// which must spend only the lock.
    public func sighash(of transaction: Transaction) throws(CoopClaimError) -> [UInt8] {
        try CoopClaimError.wrapping {
            try TaprootSighash(transaction: transaction, spentOutputs: [spentOutput]).hash(inputIndex: 0)
        }
    }

    /// The session both sides sign in, once both public nonces are known.
    func session(nonces: [MuSig2PublicNonce], sighash: [UInt8]) -> MuSig2Session {
        MuSig2Session(keyAggregation: keyAggregation, aggregateNonce: MuSig2AggregateNonce(aggregating: nonces),
                      message: sighash)
    }

    /// A key-path claim signed with `signature`: one 64-byte witness element.
    static func withKeyPathWitness(_ transaction: Transaction, _ signature: SchnorrSignature) -> Transaction {
        var signed = transaction
        signed.inputs[0].witness = Witness([signature.bytes])
        return signed
    }
}
