/// A block: its header and transactions, the first of which is the coinbase. Wire
/// encoding includes witnesses (what `getblock <hash> 0` prints and peers relay).
public struct Block: Hashable, Sendable {
    public var header: BlockHeader
    public var transactions: [Transaction]

    public init(header: BlockHeader, transactions: [Transaction]) {
        self.header = header
        self.transactions = transactions
    }

    public var hash: BlockHash { header.hash }

    public var serialized: [UInt8] { serialized(includingWitness: true) }

    public func serialized(includingWitness: Bool) -> [UInt8] {
        var writer = ByteWriter()
        header.write(to: &writer)
        writer.writeCompactSize(transactions.count)
        for transaction in transactions { writer.write(transaction.serialized(includingWitness: includingWitness)) }
        return writer.bytes
    }

    /// BIP141 weight: stripped size × 3 + total size.
    public var weight: Int { serialized(includingWitness: false).count * 3 + serialized.count }

    /// The merkle root of the txids, and whether the list is mutated (see `MerkleTree`).
    public var computedMerkleRoot: (root: [UInt8], mutated: Bool) {
        MerkleTree.root(of: transactions.map(\.txid.bytes))
    }

    /// Whether the coinbase commits to these transactions' witnesses as BIP141 requires:
    /// a commitment output matching the wtxid root and the coinbase's single 32-byte
    /// witness reserved value. A block with no witness data needs no commitment.
    public var hasValidWitnessCommitment: Bool {
        guard let coinbase = transactions.first else { return false }
        guard let index = WitnessCommitment.outputIndex(in: coinbase) else {
            return !transactions.contains { $0.hasWitness }
        }
        let stack = coinbase.inputs.first?.witness.stack ?? []
        guard stack.count == 1, stack[0].count == 32 else { return false }
        let expected = WitnessCommitment.commitment(witnessRoot: WitnessCommitment.witnessRoot(of: transactions),
                                                    reservedValue: stack[0])
        return Array(coinbase.outputs[index].scriptPubKey.bytes[6..<38]) == expected
    }

    public init(bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let header = try BlockHeader.read(from: &reader)
        let count = try reader.readCompactSize()
        var transactions: [Transaction] = []
        for _ in 0..<count { transactions.append(try Transaction.read(from: &reader)) }
        guard reader.isAtEnd else { throw BitcoinError.trailingBytes(what: "block", count: reader.remaining) }
        self.init(header: header, transactions: transactions)
    }

    public init(hex: String) throws {
        guard let raw = [UInt8](hex: hex) else { throw BitcoinError.invalidHex }
        try self.init(bytes: raw)
    }
}
