import Bitcoin

/// The branch keys of both derivation schemes (`SwapKeyScheme`), derived once from the
/// node seed for one network, so deriving a swap's secrets costs three child derivations.
public struct SwapKeyChain: Sendable {
    /// peernode's purpose branch, hardened.
    public static let purpose: UInt32 = 1009
    static let preimageTag = "peernode/preimage"

    /// The claim, refund and preimage parents of one scheme.
    private struct Branches: Sendable {
        let claim: ExtendedKey
        let refund: ExtendedKey
        let preimage: ExtendedKey

        init(parent: ExtendedKey) throws {
            let hardened = DerivationPath.hardenedOffset
            claim = try parent.derivedChild(0 | hardened)
            refund = try parent.derivedChild(1 | hardened)
            preimage = try parent.derivedChild(2 | hardened)
        }
    }

    /// The network the networked scheme derives for (the legacy scheme ignores it).
    public let network: Network
    private let legacy: Branches
    private let networked: Branches

    /// `seed` is the node's 32-byte seed; `network` the one the node runs on.
    public init(seed: [UInt8], network: Network) throws {
        guard seed.count == 32 else { throw HTLCError.invalidSeedLength(seed.count) }
        let hardened = DerivationPath.hardenedOffset
        self.network = network
        (legacy, networked) = try HTLCError.wrapping {
            let root = try ExtendedKey(seed: seed).derivedChild(Self.purpose | hardened)
            let version = try root.derivedChild(SwapKeyScheme.versionOneBranch | hardened)
                .derivedChild(SwapKeyScheme.networkBranch(network) | hardened)
            return (try Branches(parent: root), try Branches(parent: version))
        }
    }

    /// The payment hash of swap `index` under `scheme` alone: one derivation instead of
    /// three, for checking many stored swaps.
    public func paymentHash(index: UInt32, scheme: SwapKeyScheme) throws -> [UInt8] {
        guard index < DerivationPath.hardenedOffset else { throw HTLCError.swapIndexOutOfRange(index) }
        let branch = scheme == .legacy ? legacy.preimage : networked.preimage
        return try HTLCError.wrapping {
            guard let preimageKey = try branch.derivedChild(index | DerivationPath.hardenedOffset).privateKey else {
                throw HTLCError.bitcoin(.invalidExtendedKey("derived a public-only key from a private one"))
            }
            return SHA256.hash(TaggedHash.hash(tag: Self.preimageTag, preimageKey.bytes))
        }
    }

    /// The secrets of swap `index` (below 2^31, as hardened indexes are) under `scheme`:
    /// always the scheme the swap's record names, `SwapKeyScheme.current` for a new swap.
    public func secrets(index: UInt32, scheme: SwapKeyScheme) throws -> SwapSecrets {
        guard index < DerivationPath.hardenedOffset else { throw HTLCError.swapIndexOutOfRange(index) }
        let child = index | DerivationPath.hardenedOffset
        let branches = scheme == .legacy ? legacy : networked
        return try HTLCError.wrapping {
            guard let claimKey = try branches.claim.derivedChild(child).privateKey,
                  let refundKey = try branches.refund.derivedChild(child).privateKey,
                  let preimageKey = try branches.preimage.derivedChild(child).privateKey else {
                // Children of a private extended key always carry a private key.
                throw HTLCError.bitcoin(.invalidExtendedKey("derived a public-only key from a private one"))
            }
            return SwapSecrets(index: index, scheme: scheme, claimKey: claimKey, refundKey: refundKey,
                               preimage: TaggedHash.hash(tag: Self.preimageTag, preimageKey.bytes))
        }
    }
}
