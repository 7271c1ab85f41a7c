import Bitcoin

/// What both sides of a cooperative key-path spend derive from the swap alone: the lock it
/// spends and the BIP327 key aggregation that signs for the lock's output key, that is
/// KeyAgg(provider, client) with the contract's x-only Taproot tweak applied. The same in
/// either direction and for either spend (`CoopSpendKind`): the internal key is always
/// the provider's and the client's, in that order.
public struct CoopSpendContext: Sendable, Hashable {
    public let contract: TaprootSwapContract
    public let lock: LockOutput
    /// KeyAgg(provider, client) tweaked by TapTweak(P || merkle root): its x-only key is
    /// the contract's output key.
    public let keyAggregation: MuSig2KeyAggregation

    /// Refuses a contract without a key path (P2WSH).
    public init(contract: SwapContract, lock: LockOutput) throws(CoopSpendError) {
        guard case .taprootBoltz(let taproot) = contract else { throw .noKeyPath }
        let terms = taproot.terms
        keyAggregation = try CoopSpendError.wrapping {
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
    public func sighash(of transaction: Transaction) throws(CoopSpendError) -> [UInt8] {
        try CoopSpendError.wrapping {
            try TaprootSighash(transaction: transaction, spentOutputs: [spentOutput]).hash(inputIndex: 0)
        }
    }

    /// The session both sides sign in, once both public nonces are known (NonceAgg is a
    /// sum: their order does not matter).
    func session(nonces: [MuSig2PublicNonce], sighash: [UInt8]) -> MuSig2Session {
        MuSig2Session(keyAggregation: keyAggregation, aggregateNonce: MuSig2AggregateNonce(aggregating: nonces),
                      message: sighash)
    }

    /// A key-path spend signed with `signature`: one 64-byte witness element.
    static func withKeyPathWitness(_ transaction: Transaction, _ signature: SchnorrSignature) -> Transaction {
        var signed = transaction
        signed.inputs[0].witness = Witness([signature.bytes])
        return signed
    }

    /// The size of `transaction` once its key-path signature is in (64 bytes, always).
    static func keyPathVirtualSize(of transaction: Transaction) -> Int {
        withKeyPathWitness(transaction, placeholderSignature).virtualSize
    }

    /// 64 bytes standing in for the signature when sizing (Schnorr signatures are always 64).
    private static let placeholderSignature = try! SchnorrSignature([UInt8](repeating: 0, count: SchnorrSignature.byteCount))
}
