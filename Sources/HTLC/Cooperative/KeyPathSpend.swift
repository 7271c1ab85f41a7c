import Bitcoin

/// Tells a key-path spend of a `taproot_boltz` lock from a script-path one, by the witness
/// alone. BIP341: once a last item starting 0x50 is set aside as the annex (with two or more
/// items), a single item left is a key-path signature; a script path always has at least
/// the leaf and its control block.
///
/// A key-path spend is signed for the output key, KeyAgg(provider, client) tweaked: neither
/// party can make one alone, so a party that finds one on chain knows it took part in it
/// (or its key is no longer secret). It reveals no preimage: a provider recognises its own
/// cooperative claim by the claim it co-signed (`PreimageExtractor` would call it an
/// `unreadableClaim`), and a client by the claim it signed.
public enum KeyPathSpend {
    /// Whether `witness` spends `contract`'s output through its key path. Always false for
    /// a P2WSH contract (no key path).
    public static func isKeyPath(_ witness: Witness, contract: SwapContract) -> Bool {
        guard case .taprootBoltz = contract else { return false }
        let stack = PreimageExtractor.items(of: witness, contract: contract)
        // 64 bytes for SIGHASH_DEFAULT, 65 with an explicit sighash type.
        return stack.count == 1 && (stack[0].count == 64 || stack[0].count == 65)
    }
}
