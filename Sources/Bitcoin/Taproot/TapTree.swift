/// A taproot script tree: a leaf, or a branch of two subtrees (the shape of BIP341's
/// `scriptTree`, where a node is a leaf or a two-element list).
///
/// The position of a leaf decides how long its proof is, so the shape is the caller's
/// choice; hashes do not depend on left/right order because branches sort their children.
public indirect enum TapTree: Hashable, Sendable {
    case leaf(TapLeaf)
    case branch(TapTree, TapTree)

    /// BIP341 allows at most 128 levels below the root (the control block limit).
    public static let maxDepth = 128

    /// TaggedHash("TapBranch", smaller || larger) for two child hashes. Sorting makes the
    /// proof need no left/right bits.
    public static func branchHash(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        let ordered = a.lexicographicallyPrecedes(b) ? a + b : b + a
        return TaggedHash.hash(tag: "TapBranch", ordered)
    }

    /// The leaf hash or the branch hash of this node; for the root, the merkle root that the
    /// output key commits to.
    public var hash: [UInt8] {
        switch self {
        case .leaf(let leaf): return leaf.hash
        case .branch(let left, let right): return Self.branchHash(left.hash, right.hash)
        }
    }

    public var merkleRoot: [UInt8] { hash }

    /// The leaves from left to right, as BIP341's vectors number them.
    public var leaves: [TapLeaf] { leafPaths.map(\.leaf) }

    /// A leaf with its merkle path: the sibling hashes from the leaf up to the root, which is
    /// the order a control block lists them in.
    public struct LeafPath: Hashable, Sendable {
        public let leaf: TapLeaf
        public let path: [[UInt8]]
    }

    /// Every leaf with its merkle path, left to right.
    public var leafPaths: [LeafPath] {
        switch self {
        case .leaf(let leaf):
            return [LeafPath(leaf: leaf, path: [])]
        case .branch(let left, let right):
            // Each side's leaves need the other side's hash one level up.
            let leftHash = left.hash
            let rightHash = right.hash
            return left.leafPaths.map { LeafPath(leaf: $0.leaf, path: $0.path + [rightHash]) }
                + right.leafPaths.map { LeafPath(leaf: $0.leaf, path: $0.path + [leftHash]) }
        }
    }

    /// The merkle path of the first occurrence of `leaf`, or nil when it is not in the tree.
    public func merklePath(for leaf: TapLeaf) -> [[UInt8]]? {
        leafPaths.first { $0.leaf == leaf }?.path
    }

    /// The number of branches between the root and the deepest leaf.
    public var depth: Int {
        switch self {
        case .leaf: return 0
        case .branch(let left, let right): return 1 + Swift.max(left.depth, right.depth)
        }
    }
}
