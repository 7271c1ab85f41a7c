import Bitcoin
import Transport

/// `blockchain.transaction.get_merkle`'s answer: the branch from a transaction to its
/// block's merkle root. Pure: `proves(_:in:)` is what lets the node believe a server's
/// "confirmed at height h" — the transaction hashes up to the merkle root of a header the
/// node fetched by height, so a server cannot invent a confirmation without mining a block.
public struct ElectrumMerkleProof: Sendable, Equatable {
    public let blockHeight: Int
    /// The sibling hashes, leaf level first, in internal byte order.
    public let branch: [[UInt8]]
    /// The transaction's index in the block (its bits pick left or right at each level).
    public let position: Int

    public init(blockHeight: Int, branch: [[UInt8]], position: Int) {
        self.blockHeight = blockHeight
        self.branch = branch
        self.position = position
    }

    /// From `{"block_height": h, "merkle": ["<hex>", …], "pos": n}`; the branch hashes are
    /// printed reversed, as txids are.
    init(decoding value: JSONValue, method: String) throws(ElectrumError) {
        let height = try ElectrumDecoding.int(value["block_height"], "block_height", method: method)
        let position = try ElectrumDecoding.int(value["pos"], "pos", method: method)
        guard position >= 0, let hashes = value["merkle"]?.arrayValue, hashes.count < 64 else {
            throw .unexpectedResult(method: method, reason: "no merkle branch")
        }
        var branch: [[UInt8]] = []
        for hash in hashes {
            guard let hex = hash.stringValue, let bytes = [UInt8](hex: hex), bytes.count == 32 else {
                throw .unexpectedResult(method: method, reason: "a merkle branch hash is 64 hex characters")
            }
            branch.append(Array(bytes.reversed()))
        }
        self.init(blockHeight: height, branch: branch, position: position)
    }

    /// Whether the branch leads from `txid` to `header`'s merkle root. A position with
    /// bits beyond the branch's depth is refused: it would name a leaf the tree has not.
    public func proves(_ txid: TransactionID, in header: BlockHeader) -> Bool {
        guard position >> branch.count == 0 else { return false }
        var hash = txid.bytes
        var index = position
        for sibling in branch {
            // A sibling equal to the hash itself at an odd index would be Core's duplicated
            // last leaf standing in for a real one (CVE-2012-2459's shape): refused.
            if index & 1 == 1 {
                if sibling == hash { return false }
                hash = SHA256.doubleHash(sibling + hash)
            } else {
                hash = SHA256.doubleHash(hash + sibling)
            }
            index >>= 1
        }
        return hash == header.merkleRoot
    }
}
