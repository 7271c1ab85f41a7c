/// Bitcoin's merkle tree over 32-byte hashes (Core's `ComputeMerkleRoot`): pairs are
/// double-SHA-256'd level by level, an odd last hash is paired with itself.
public enum MerkleTree {
    /// The root of `leaves`, and whether the tree is "mutated": two equal adjacent hashes at
    /// some level, which lets a different transaction list produce the same root
    /// (CVE-2012-2459). Core refuses such blocks as `bad-txns-duplicate`. An empty list has
    /// the all-zero root.
    public static func root(of leaves: [[UInt8]]) -> (root: [UInt8], mutated: Bool) {
        guard !leaves.isEmpty else { return ([UInt8](repeating: 0, count: 32), false) }
        var level = leaves
        var mutated = false
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity((level.count + 1) / 2)
            var index = 0
            while index < level.count {
                let left = level[index]
                let right = index + 1 < level.count ? level[index + 1] : left
                if index + 1 < level.count && left == right { mutated = true }
                next.append(SHA256.doubleHash(left + right))
                index += 2
            }
            level = next
        }
        return (level[0], mutated)
    }
}
