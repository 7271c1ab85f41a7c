import Bitcoin

/// The `taproot_boltz` contract: Boltz's reverse-swap tree, so a Boltz-style client or
/// explorer reads our locks and we read theirs.
///
/// A submarine swap (`ContractRoles.submarine`) uses the same two leaves with the keys
/// trading places: the provider's key in the claim leaf, the client's in the refund leaf,
/// and the internal key still KeyAgg(provider, client). The claim leaf keeps its size
/// check in both directions: whoever claims, the preimage it reveals must settle a
/// Lightning payment. (Boltz's own submarine claim leaf has no size check; ours is not
/// byte-compatible with it, on purpose.)
///
///                      output key Q = P + TapTweak(P || root)·G
///                                 |
///         P = MuSig2 KeyAgg(provider key, client key)   (unsorted, both directions)
///                                 |
///                        root = TapBranch(claim, refund)
///                          /                       \
///     claim leaf (0xc0):                         refund leaf (0xc0):
///       OP_SIZE 32 OP_EQUALVERIFY                  <refund_xonly> OP_CHECKSIGVERIFY
///       OP_HASH160 <RIPEMD160(payment_hash)>       <timeout> OP_CHECKLOCKTIMEVERIFY
///       OP_EQUALVERIFY
///       <claim_xonly> OP_CHECKSIG
///
///     reverse:   claim = client, refund = provider
///     submarine: claim = provider, refund = client
///
/// Claim witness:  [schnorr_sig, preimage, claim_leaf, claim_control_block]
/// Refund witness: [schnorr_sig, refund_leaf, refund_control_block], nLockTime >= timeout
///
/// The claim leaf compares HASH160(preimage) with RIPEMD160(payment_hash), which is the same
/// 20 bytes, and checks the preimage is 32 bytes first: a longer value with a colliding
/// HASH160 could not settle the Lightning invoice. The refund leaf leaves the CLTV value on
/// the stack as its true result (tapscript has no clean-stack rule beyond "one true item").
///
/// The key path (a MuSig2 signature of both parties) is a cheaper cooperative claim; the
/// Bitcoin module can sign it (`MuSig2Session`, docs/MUSIG2.md) and `Cooperative/` has the
/// pure steps of both sides, but no engine asks for one yet.
public struct TaprootSwapContract: Sendable, Hashable {
    public let terms: SwapTerms
    public let claimLeaf: TapLeaf
    public let refundLeaf: TapLeaf
    /// branch(claim, refund): two leaves at depth 1, each the other's merkle path.
    public let tree: TapTree
    /// The MuSig2 aggregate of (provider key, client key), in that order, in both directions.
    public let internalKey: XOnlyPublicKey
    /// The BIP341 output key the lock pays.
    public let outputKey: XOnlyPublicKey
    /// Whether the output key's full point has odd y (the control blocks' parity bit).
    public let outputKeyIsOdd: Bool
    public let claimControlBlock: ControlBlock
    public let refundControlBlock: ControlBlock

    /// The contract of `terms`. Building one costs two scalar multiplications (the key
    /// aggregation) and a tweak, and an engine rebuilds a swap's contract from its record at
    /// each step, so contracts built once in this process are remembered by their terms
    /// (`built`): the same terms give the same contract.
    public init(terms: SwapTerms) throws {
        if let known = Self.built[terms] {
            self = known
            return
        }
        try self.init(building: terms)
        Self.built.remember(self, for: terms)
    }

    /// The contracts built in this process, by their terms, which hold every input of a
    /// contract (network, payment hash, both parties' keys, timeout, roles).
    static let built = BoundedMemo<SwapTerms, TaprootSwapContract>(capacity: 1_024)

    /// The contract of `terms`, computed.
    init(building terms: SwapTerms) throws {
        let claimLeaf = TapLeaf(script: Self.claimScript(preimageHash160: RIPEMD160.hash(terms.paymentHash),
                                                         claimKey: terms.claimPublicKey.xOnlyPublicKey))
        let refundLeaf = TapLeaf(script: Self.refundScript(refundKey: terms.refundPublicKey.xOnlyPublicKey,
                                                           timeoutHeight: terms.timeoutHeight))
        let tree = TapTree.branch(.leaf(claimLeaf), .leaf(refundLeaf))
        let internalKey = try Self.internalKey(provider: terms.providerPublicKey, client: terms.clientPublicKey)
        let tweaked = try HTLCError.wrapping { try internalKey.tapTweaked(merkleRoot: tree.merkleRoot) }
        let controlBlocks = try HTLCError.wrapping {
            try [claimLeaf, refundLeaf].map {
                try ControlBlock(tree: tree, leaf: $0, internalKey: internalKey.bytes, outputKeyIsOdd: tweaked.parityOdd)
            }
        }
        self.terms = terms
        self.claimLeaf = claimLeaf
        self.refundLeaf = refundLeaf
        self.tree = tree
        self.internalKey = internalKey
        outputKey = tweaked.key
        outputKeyIsOdd = tweaked.parityOdd
        claimControlBlock = controlBlocks[0]
        refundControlBlock = controlBlocks[1]
    }

    /// `OP_SIZE 32 OP_EQUALVERIFY OP_HASH160 <hash160> OP_EQUALVERIFY <claim_xonly> OP_CHECKSIG`,
    /// where hash160 = RIPEMD160(payment_hash) = HASH160(preimage).
    static func claimScript(preimageHash160: [UInt8], claimKey: XOnlyPublicKey) -> Script {
        Script([
            .size, .pushNumber(32), .equalVerify,
            .hash160, .pushData(preimageHash160), .equalVerify,
            .pushData(claimKey.bytes), .checkSig,
        ])
    }

    /// `<refund_xonly> OP_CHECKSIGVERIFY <timeout> OP_CHECKLOCKTIMEVERIFY`
    static func refundScript(refundKey: XOnlyPublicKey, timeoutHeight: UInt32) -> Script {
        Script([
            .pushData(refundKey.bytes), .checkSigVerify,
            .pushNumber(Int64(timeoutHeight)), .checkLockTimeVerify,
        ])
    }

    /// BIP327 KeyAgg of (provider, client) in that order. BIP327 leaves ordering to the
    /// caller; Boltz aggregates (its key, the user's key) without KeySort, and so must we to
    /// get the same output key.
    static func internalKey(provider: PublicKey, client: PublicKey) throws -> XOnlyPublicKey {
        do {
            return try MuSig2KeyAggregation(publicKeys: [provider, client]).xOnlyPublicKey
        } catch let error as BitcoinError {
            throw HTLCError.invalidKeys(error.description)
        }
    }

    /// `OP_1 <output key>`.
    public var address: Address { .p2tr(outputKey: outputKey.bytes) }
    public var scriptPubKey: Script { address.script }

    /// Checks leaves the provider sent (e.g. in a SwapAccept) against the ones computed from
    /// the terms, so a client never pays into a tree it did not agree to.
    public func check(claimLeafScript: [UInt8], refundLeafScript: [UInt8]) throws {
        guard claimLeafScript == claimLeaf.script.bytes else { throw HTLCError.contractMismatch("claim leaf") }
        guard refundLeafScript == refundLeaf.script.bytes else { throw HTLCError.contractMismatch("refund leaf") }
    }
}
