import Bitcoin

/// One swap's secrets, derived from the node seed and the swap's index so that a node that
/// lost its database can rebuild every swap's keys and preimage from the seed and find its
/// swaps on chain.
///
/// Derivation (BIP32, all steps hardened, master key = `ExtendedKey(seed:)`), with `P` the
/// scheme's prefix (`SwapKeyScheme`): `m/1009'` for legacy swaps, `m/1009'/16'/net'` for
/// networked ones (every swap made since the network entered the path):
///
///     claim key   = P/0'/index'
///     refund key  = P/1'/index'
///     preimage    = TaggedHash("peernode/preimage", private key of P/2'/index')
///     payment hash = SHA256(preimage)
///
/// 1009' is peernode's purpose branch (not a BIP43 number any wallet uses). The preimage
/// is a tagged hash of a key rather than the key itself so a preimage revealed on chain is
/// never a private key. Hardened steps mean a leaked child key reveals nothing about its
/// siblings or the seed.
///
/// `description` shows only the index and the public parts.
public struct SwapSecrets: Sendable {
    public let index: UInt32
    /// The derivation the secrets came from; stored with the swap.
    public let scheme: SwapKeyScheme
    public let claimKey: PrivateKey
    public let refundKey: PrivateKey
    /// The 32-byte Lightning preimage. Never log it before the claim reveals it.
    public let preimage: [UInt8]

    /// SHA256(preimage), the invoice's payment hash.
    public var paymentHash: [UInt8] { SHA256.hash(preimage) }

    /// Derives the secrets of swap `index` under `scheme` from a 32-byte node seed.
    public init(seed: [UInt8], network: Network, index: UInt32, scheme: SwapKeyScheme) throws {
        self = try SwapKeyChain(seed: seed, network: network).secrets(index: index, scheme: scheme)
    }

    init(index: UInt32, scheme: SwapKeyScheme, claimKey: PrivateKey, refundKey: PrivateKey, preimage: [UInt8]) {
        self.index = index
        self.scheme = scheme
        self.claimKey = claimKey
        self.refundKey = refundKey
        self.preimage = preimage
    }
}

extension SwapSecrets: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SwapSecrets(index \(index), scheme \(scheme.rawValue), claim \(claimKey.publicKey.compressed.hex), "
            + "refund \(refundKey.publicKey.compressed.hex), payment hash \(paymentHash.hex))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["index": index, "scheme": scheme], displayStyle: .struct) }
}
