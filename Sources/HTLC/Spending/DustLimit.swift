/// The smallest output value Bitcoin Core relays, per destination type.
///
/// Core's `GetDustThreshold` (policy/policy.cpp): an output is dust when spending it would
/// cost more than a third of its value at the dust relay fee (default 3000 sat/kvB,
/// `DUST_RELAY_TX_FEE`):
///
///     size  = serialized output size (8 value + 1 length + scriptPubKey)
///     size += witness program ? 32 + 4 + 1 + 107/4 + 4  (= 67)
///                             : 32 + 4 + 1 + 107 + 4    (= 148)
///     dust threshold = dustRelayFee.GetFee(size) = ceil(size × 3000 / 1000)
///
/// giving P2PKH 546, P2SH 540, P2WPKH 294, P2WSH 330, P2TR 330.
public enum DustLimit {
    /// Core's default `-dustrelayfee`, sat/kvB.
    public static let defaultDustRelayFee: Int64 = 3000

    /// The dust threshold for `destination` at `dustRelayFee` sat/kvB.
    public static func threshold(for destination: DestinationType, dustRelayFee: Int64 = defaultDustRelayFee) -> Int64 {
        let outputSize = 8 + 1 + destination.scriptPubKeySize
        // The input that would spend it: outpoint 32 + index 4 + script length 1 + 107 bytes
        // of scriptSig (a signature and a key), sequence 4; witness bytes count a quarter.
        let spendSize = destination.isWitnessProgram ? 32 + 4 + 1 + 107 / 4 + 4 : 32 + 4 + 1 + 107 + 4
        let size = Int64(outputSize + spendSize)
        return (size * dustRelayFee + 999) / 1000
    }
}
