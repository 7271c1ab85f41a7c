/// BIP141's commitment to a block's witnesses: the merkle root of the wtxids (the
/// coinbase's counted as zero) hashed with the coinbase's witness reserved value, placed in
/// a coinbase output `OP_RETURN OP_PUSHBYTES_36 aa21a9ed <32-byte commitment>`.
public enum WitnessCommitment {
    /// The 4 bytes that mark a commitment output after `OP_RETURN 0x24`.
    public static let tag: [UInt8] = [0xaa, 0x21, 0xa9, 0xed]
    /// The witness reserved value peernode puts in coinbases: 32 zero bytes, as Core's miner does.
    public static let defaultReservedValue = [UInt8](repeating: 0, count: 32)

    /// The merkle root of the transactions' wtxids with the coinbase's replaced by zeros.
    public static func witnessRoot(of transactions: [Transaction]) -> [UInt8] {
        let leaves = transactions.enumerated().map { index, transaction in
            index == 0 ? [UInt8](repeating: 0, count: 32) : transaction.wtxid.bytes
        }
        return MerkleTree.root(of: leaves).root
    }

    /// SHA256d(witness root || reserved value).
    public static func commitment(witnessRoot: [UInt8], reservedValue: [UInt8] = defaultReservedValue) -> [UInt8] {
        SHA256.doubleHash(witnessRoot + reservedValue)
    }

    /// The coinbase output script carrying `commitment`.
    public static func script(commitment: [UInt8]) -> Script {
        precondition(commitment.count == 32, "a witness commitment is 32 bytes")
        return Script(bytes: [0x6a, 0x24] + tag + commitment)
    }

    /// The index of the output holding the commitment: the last one that matches, as
    /// Core's `GetWitnessCommitmentIndex` picks it. Nil when there is none.
    public static func outputIndex(in coinbase: Transaction) -> Int? {
        coinbase.outputs.lastIndex { output in
            let script = output.scriptPubKey.bytes
            return script.count >= 38 && script[0] == 0x6a && script[1] == 0x24 && Array(script[2..<6]) == tag
        }
    }
}
