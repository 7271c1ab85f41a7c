import Bitcoin

/// The client's side of a cooperative claim of a reverse swap's lock, as pure steps (the
/// engine does the I/O, and decides beforehand with `CoopRevealRule` that the preimage may
/// be revealed):
/// 1. `init`: builds the unsigned key-path claim (one input: the lock; one output: the
///    destination), and a fresh secret nonce bound to this session (the client's key, the
///    tweaked aggregate key, the sighash, the lock's outpoint); `record` is what the engine
///    writes as `coop_requested` before it sends the request;
/// 2. `finish`: verifies the provider's partial signature, signs with the secret nonce
///    (consumed: the value cannot be used again), aggregates, and returns the claim with
///    its one 64-byte witness element.
///
/// The value is `~Copyable` because it owns the secret nonce: there is one, it is used by
/// `finish` or dropped (and erased) with the value. Any refusal means the script-path
/// claim, which stays valid whatever happens here.
public struct CoopClaimClient: ~Copyable {
    public let context: CoopClaimContext
    public let unsignedClaim: Transaction
    /// The key-path sighash of `unsignedClaim`.
    public let sighash: [UInt8]
    /// The claim's amounts: `outputValue` and `fee` of the key-path claim, `virtualSize`
    /// its size once signed.
    public let plan: ClaimPlan
    /// The script-path claim the lock was priced for, at the same fee rate (the fallback).
    public let scriptPathPlan: ClaimPlan
    private let clientKey: PrivateKey
    private let secretNonce: MuSig2SecretNonce

    /// Builds the claim for `request` (the same request the script-path `ClaimBuilder`
    /// takes, so the fallback is the claim of today). Fees: the lock carries X plus the
    /// script-path fee; a contact payment sends exactly the script-path output (X) and the
    /// saved bytes raise the fee rate; a swap-out pays the key-path fee at the requested
    /// rate and sends the rest to the client's own address (the saving is the client's).
    public init(request: ClaimRequest, clientKey: PrivateKey, policy: ClaimPolicy = .default) throws(CoopClaimError) {
        let context = try CoopClaimContext(contract: request.contract, lock: request.lock)
        guard clientKey.publicKey == context.contract.terms.clientPublicKey else { throw .keyMismatch(role: "client") }
        let scriptPathPlan = try CoopClaimError.wrapping { try ClaimBuilder(policy: policy).plan(request) }
        let input = TransactionInput(previousOutput: request.lock.outPoint, sequence: TransactionInput.replaceableSequence)
        func claim(paying value: Int64) -> Transaction {
            Transaction(version: 2, inputs: [input],
                        outputs: [TransactionOutput(value: value, scriptPubKey: request.destination.script)], lockTime: 0)
        }
        let virtualSize = CoopClaimContext.withKeyPathWitness(claim(paying: 0), Self.placeholderSignature).virtualSize
        let outputValue: Int64
        switch request.purpose {
        case .payContact: outputValue = scriptPathPlan.outputValue
        case .swapOut:
            let keyPathFee = request.feeRate.fee(forVirtualSize: virtualSize)
            outputValue = max(scriptPathPlan.outputValue, request.lock.value - keyPathFee)
        }
        let unsignedClaim = claim(paying: outputValue)
        let sighash = try context.sighash(of: unsignedClaim)
        let aggregateKey = context.keyAggregation.xOnlyPublicKey
        let outPoint = request.lock.outPoint
        secretNonce = try CoopClaimError.wrapping {
            try MuSig2SecretNonce(publicKey: clientKey.publicKey, secretKey: clientKey, aggregateKey: aggregateKey,
                                  message: sighash, extraInput: outPoint.txid.bytes + Self.littleEndian(outPoint.index))
        }
        self.context = context
        self.unsignedClaim = unsignedClaim
        self.sighash = sighash
        self.plan = ClaimPlan(outputValue: outputValue, fee: request.lock.value - outputValue,
                              amountDrop: scriptPathPlan.amountDrop, virtualSize: virtualSize)
        self.scriptPathPlan = scriptPathPlan
        self.clientKey = clientKey
    }

    /// The public nonce to send.
    public var publicNonce: MuSig2PublicNonce { secretNonce.publicNonce }

    /// What the engine records as `coop_requested` before sending the request.
    public var record: CoopRequestedRecord {
        CoopRequestedRecord(publicNonce: publicNonce, sighash: sighash, unsignedClaim: unsignedClaim)
    }

    /// Verifies the provider's answer, signs (using up the secret nonce whatever happens),
    /// aggregates, and returns the signed key-path claim. A partial signature that does not
    /// verify is refused before the client signs anything.
    public consuming func finish(providerNonce: MuSig2PublicNonce,
                                 partialSignature: MuSig2PartialSignature) throws(CoopClaimError) -> Transaction {
        let session = context.session(nonces: [providerNonce, secretNonce.publicNonce], sighash: sighash)
        let providerKey = context.contract.terms.providerPublicKey
        guard session.verify(partialSignature, publicNonce: providerNonce, publicKey: providerKey) else {
            throw .partialSignatureInvalid
        }
        let ownSignature: MuSig2PartialSignature
        do {
            ownSignature = try session.sign(secretNonce, with: clientKey)
        } catch let error as BitcoinError {
            throw .bitcoin(error)
        } catch {
            throw .bitcoin(.invalidTransaction("\(error)"))
        }
        let signature = try CoopClaimError.wrapping { try session.aggregate([partialSignature, ownSignature]) }
        // Checked here rather than trusted: a bad aggregate is a script-path claim, not a
        // broadcast the network refuses.
        guard signature.verify(message: sighash, publicKey: context.contract.outputKey) else {
            throw .aggregateSignatureInvalid
        }
        return CoopClaimContext.withKeyPathWitness(unsignedClaim, signature)
    }

    /// 64 bytes standing in for the signature when sizing (Schnorr signatures are always 64).
    private static let placeholderSignature = try! SchnorrSignature([UInt8](repeating: 0, count: SchnorrSignature.byteCount))

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
