import Bitcoin
import HTLC

/// The public side of our swap secrets under one key scheme for indexes 0..<count, looked up by the values a
/// revealed script carries (x-only keys, compressed keys, payment hashes). Private keys
/// and preimages are not kept here: matching needs only public data, and what is not held
/// cannot leak.
struct RecoveryKeyTable: Sendable {
    struct Entry: Sendable {
        let index: UInt32
        let claimKey: PublicKey
        let refundKey: PublicKey
        let paymentHash: [UInt8]
        /// RIPEMD160(payment hash) = HASH160(preimage): what the Taproot claim leaf holds.
        let hash160: [UInt8]
    }

    private let keyChain: SwapKeyChain
    /// The derivation these entries come from; a match found here is a swap of this scheme.
    let scheme: SwapKeyScheme
    private(set) var entries: [Entry] = []
    private var byClaimXOnly: [[UInt8]: UInt32] = [:]
    private var byRefundXOnly: [[UInt8]: UInt32] = [:]
    private var byClaimKey: [[UInt8]: UInt32] = [:]
    private var byRefundKey: [[UInt8]: UInt32] = [:]

    init(keyChain: SwapKeyChain, scheme: SwapKeyScheme) {
        self.keyChain = keyChain
        self.scheme = scheme
    }

    var count: Int { entries.count }

    /// Derives indexes up to (not including) `count`.
    mutating func extend(to count: Int) throws {
        while entries.count < count {
            let secrets = try keyChain.secrets(index: UInt32(entries.count), scheme: scheme)
            let entry = Entry(index: secrets.index, claimKey: secrets.claimKey.publicKey,
                              refundKey: secrets.refundKey.publicKey, paymentHash: secrets.paymentHash,
                              hash160: RIPEMD160.hash(secrets.paymentHash))
            entries.append(entry)
            byClaimXOnly[entry.claimKey.xOnlyPublicKey.bytes] = entry.index
            byRefundXOnly[entry.refundKey.xOnlyPublicKey.bytes] = entry.index
            byClaimKey[entry.claimKey.compressed] = entry.index
            byRefundKey[entry.refundKey.compressed] = entry.index
        }
    }

    func entry(_ index: UInt32) -> Entry { entries[Int(index)] }
    func claimIndex(xOnly: [UInt8]) -> UInt32? { byClaimXOnly[xOnly] }
    func refundIndex(xOnly: [UInt8]) -> UInt32? { byRefundXOnly[xOnly] }
    func claimIndex(compressed: [UInt8]) -> UInt32? { byClaimKey[compressed] }
    func refundIndex(compressed: [UInt8]) -> UInt32? { byRefundKey[compressed] }
}
