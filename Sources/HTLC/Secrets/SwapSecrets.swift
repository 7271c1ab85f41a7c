import Bitcoin

/// One swap's secrets, derived from the node seed and the swap's index so that a node that
/// lost its database can rebuild every swap's keys and preimage from the seed and find its
/// swaps on chain.
///
/// Derivation (BIP32, all steps hardened, master key = `ExtendedKey(seed:)`):
///
///     claim key   = m/1009'/0'/index'
///     refund key  = m/1009'/1'/index'
///     preimage    = TaggedHash("peernode/preimage", private key of m/1009'/2'/index')
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
    public let claimKey: PrivateKey
    public let refundKey: PrivateKey
    /// The 32-byte Lightning preimage. Never log it before the claim reveals it.
    public let preimage: [UInt8]

    /// SHA256(preimage), the invoice's payment hash.
    public var paymentHash: [UInt8] { SHA256.hash(preimage) }

    /// Derives the secrets of swap `index` from a 32-byte node seed.
    public init(seed: [UInt8], index: UInt32) throws {
        self = try SwapKeyChain(seed: seed).secrets(index: index)
    }

    init(index: UInt32, claimKey: PrivateKey, refundKey: PrivateKey, preimage: [UInt8]) {
        self.index = index
        self.claimKey = claimKey
        self.refundKey = refundKey
        self.preimage = preimage
    }
}

extension SwapSecrets: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SwapSecrets(index \(index), claim \(claimKey.publicKey.compressed.hex), "
            + "refund \(refundKey.publicKey.compressed.hex), payment hash \(paymentHash.hex))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["index": index], displayStyle: .struct) }
}
