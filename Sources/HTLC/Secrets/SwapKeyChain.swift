import Bitcoin

/// The three branch keys under m/1009' derived once from the node seed, so deriving a swap's
/// secrets costs three child derivations (see `SwapSecrets` for the scheme).
public struct SwapKeyChain: Sendable {
    /// peernode's purpose branch, hardened.
    public static let purpose: UInt32 = 1009
    static let preimageTag = "peernode/preimage"

    private let claimBranch: ExtendedKey
    private let refundBranch: ExtendedKey
    private let preimageBranch: ExtendedKey

    /// `seed` is the node's 32-byte seed.
    public init(seed: [UInt8]) throws {
        guard seed.count == 32 else { throw HTLCError.invalidSeedLength(seed.count) }
        let hardened = DerivationPath.hardenedOffset
        (claimBranch, refundBranch, preimageBranch) = try HTLCError.wrapping {
            let root = try ExtendedKey(seed: seed).derivedChild(Self.purpose | hardened)
            return (try root.derivedChild(0 | hardened), try root.derivedChild(1 | hardened),
                    try root.derivedChild(2 | hardened))
        }
    }

    /// The secrets of swap `index` (below 2^31, as hardened indexes are).
    public func secrets(index: UInt32) throws -> SwapSecrets {
        guard index < DerivationPath.hardenedOffset else { throw HTLCError.swapIndexOutOfRange(index) }
        let child = index | DerivationPath.hardenedOffset
        let (claimBranch, refundBranch, preimageBranch) = (claimBranch, refundBranch, preimageBranch)
        return try HTLCError.wrapping {
            guard let claimKey = try claimBranch.derivedChild(child).privateKey,
                  let refundKey = try refundBranch.derivedChild(child).privateKey,
                  let preimageKey = try preimageBranch.derivedChild(child).privateKey else {
                // Children of a private extended key always carry a private key.
                throw HTLCError.bitcoin(.invalidExtendedKey("derived a public-only key from a private one"))
            }
            return SwapSecrets(index: index, claimKey: claimKey, refundKey: refundKey,
                               preimage: TaggedHash.hash(tag: Self.preimageTag, preimageKey.bytes))
        }
    }
}
