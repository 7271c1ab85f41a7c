/// How the script interpreter reads a stack item as a boolean (Bitcoin Core's
/// `CastToBool`): false is the empty item or all zero bytes, where the last byte may also
/// be 0x80 (negative zero); anything else is true. Consensus reads `OP_IF` selectors this
/// way in segwit v0 (MINIMALIF, which allows only empty and `0x01`, is relay policy).
public enum ScriptBool {
    public static func isTrue(_ item: [UInt8]) -> Bool {
        for (index, byte) in item.enumerated() where byte != 0 {
            // Negative zero: only the sign bit, in the last byte.
            return !(index == item.count - 1 && byte == 0x80)
        }
        return false
    }
}
