import Bitcoin

/// What a claim needs besides the secrets.
public struct ClaimRequest: Sendable, Hashable {
    public var contract: SwapContract
    public var lock: LockOutput
    public var destination: Address
    /// X: what the destination should receive.
    public var amount: Int64
    public var purpose: ClaimPurpose
    public var feeRate: FeeRate
    /// timeout height − tip height, for the near-timeout rule of `ClaimPolicy`.
    public var blocksLeft: Int

    public init(contract: SwapContract, lock: LockOutput, destination: Address, amount: Int64,
                purpose: ClaimPurpose, feeRate: FeeRate, blocksLeft: Int) {
        self.contract = contract
        self.lock = lock
        self.destination = destination
        self.amount = amount
        self.purpose = purpose
        self.feeRate = feeRate
        self.blocksLeft = blocksLeft
    }
}

/// A signed claim ready to broadcast, with the amounts it was built for.
public struct SignedClaim: Sendable, Hashable {
    public let transaction: Transaction
    public let plan: ClaimPlan
}

/// Builds the client's claim: one input (the lock, RBF-signalling), one output paying the
/// destination, the rest of the lock as fee, signed on the claim path with the preimage.
///
/// Each fee bump is a fresh `build` at a higher rate; the same input makes it replace the
/// previous claim (BIP125).
public struct ClaimBuilder: Sendable {
    public let policy: ClaimPolicy

    public init(policy: ClaimPolicy = .default) {
        self.policy = policy
    }

    /// Output value and fee for `request`, without signing.
    public func plan(_ request: ClaimRequest) throws -> ClaimPlan {
        let destination = try DestinationType(address: request.destination)
        return try policy.plan(lockValue: request.lock.value, amount: request.amount, purpose: request.purpose,
                               destination: destination,
                               virtualSize: SpendSize.claim(contract: request.contract, destination: destination),
                               feeRate: request.feeRate, blocksLeft: request.blocksLeft)
    }

    public func build(_ request: ClaimRequest, claimKey: PrivateKey, preimage: [UInt8]) throws -> SignedClaim {
        let terms = request.contract.terms
        guard preimage.count == 32 else { throw HTLCError.invalidPreimageLength(preimage.count) }
        guard SHA256.hash(preimage) == terms.paymentHash else { throw HTLCError.preimageMismatch }
        try Self.checkKey(claimKey, matches: terms.claimPublicKey, contract: request.contract, role: "claim")
        let plan = try plan(request)
        let unsigned = Transaction(
            version: 2,
            inputs: [TransactionInput(previousOutput: request.lock.outPoint, sequence: TransactionInput.replaceableSequence)],
            outputs: [TransactionOutput(value: plan.outputValue, scriptPubKey: request.destination.script)],
            lockTime: 0)
        let signed = try SpendSigner.sign(unsigned, contract: request.contract, lockValue: request.lock.value,
                                          path: .claim(preimage: preimage), key: claimKey)
        return SignedClaim(transaction: signed, plan: plan)
    }

    /// A Taproot leaf holds the x-only key (either of the two private keys for that x signs
    /// for it, BIP340); a P2WSH script holds the exact compressed key.
    static func checkKey(_ key: PrivateKey, matches expected: PublicKey, contract: SwapContract, role: String) throws {
        let matches: Bool
        switch contract {
        case .taprootBoltz: matches = key.xOnlyPublicKey == expected.xOnlyPublicKey
        case .p2wsh: matches = key.publicKey == expected
        }
        guard matches else { throw HTLCError.keyMismatch(role: role) }
    }
}
