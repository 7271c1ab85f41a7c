/// The last witness element of a taproot script-path spend (BIP341): proof that a leaf is
/// committed to by the output key.
///
/// Layout: one byte `leaf_version | parity`, the 32-byte x-only internal key, then 0...128
/// 32-byte merkle path hashes from the leaf upwards. The parity is that of the *tweaked*
/// output key's y coordinate; computing it needs elliptic-curve arithmetic, so this type
/// takes it as an input.
public struct ControlBlock: Hashable, Sendable {
    public let leafVersion: UInt8
    /// Whether the tweaked output key Q has an odd y coordinate.
    public let outputKeyIsOdd: Bool
    /// The x-only internal key P.
    public let internalKey: [UInt8]
    public let path: [[UInt8]]

    public static let baseSize = 33
    public static let nodeSize = 32
    public static let maxNodes = TapTree.maxDepth

    public init(leafVersion: UInt8, outputKeyIsOdd: Bool, internalKey: [UInt8], path: [[UInt8]]) throws {
        guard leafVersion & 1 == 0 else {
            throw BitcoinError.invalidScript("a tapleaf version is even, got 0x\(String(leafVersion, radix: 16))")
        }
        guard internalKey.count == 32 else {
            throw BitcoinError.invalidScript("a control block's internal key is 32 bytes, got \(internalKey.count)")
        }
        guard path.count <= Self.maxNodes else {
            throw BitcoinError.invalidScript("a merkle path has at most \(Self.maxNodes) hashes, got \(path.count)")
        }
        guard path.allSatisfy({ $0.count == Self.nodeSize }) else {
            throw BitcoinError.invalidScript("merkle path hashes are 32 bytes")
        }
        self.leafVersion = leafVersion
        self.outputKeyIsOdd = outputKeyIsOdd
        self.internalKey = internalKey
        self.path = path
    }

    /// The control block that proves `leaf` in `tree`.
    public init(tree: TapTree, leaf: TapLeaf, internalKey: [UInt8], outputKeyIsOdd: Bool) throws {
        guard let path = tree.merklePath(for: leaf) else {
            throw BitcoinError.invalidScript("the leaf is not in the script tree")
        }
        try self.init(leafVersion: leaf.version, outputKeyIsOdd: outputKeyIsOdd, internalKey: internalKey, path: path)
    }

    /// Parses a control block, checking the sizes BIP341 requires (33 + 32m bytes, m <= 128).
    public init(bytes: [UInt8]) throws {
        let pathBytes = bytes.count - Self.baseSize
        guard pathBytes >= 0, pathBytes % Self.nodeSize == 0, pathBytes / Self.nodeSize <= Self.maxNodes else {
            throw BitcoinError.invalidScript("a control block is 33 + 32m bytes with m <= 128, got \(bytes.count)")
        }
        let path = stride(from: Self.baseSize, to: bytes.count, by: Self.nodeSize).map {
            Array(bytes[$0..<$0 + Self.nodeSize])
        }
        try self.init(leafVersion: bytes[0] & 0xfe, outputKeyIsOdd: bytes[0] & 1 == 1,
                      internalKey: Array(bytes[1..<33]), path: path)
    }

    public var bytes: [UInt8] {
        var out = [leafVersion | (outputKeyIsOdd ? 1 : 0)]
        out.reserveCapacity(Self.baseSize + Self.nodeSize * path.count)
        out += internalKey
        for node in path { out += node }
        return out
    }

    /// The merkle root this block proves for `script` run under its leaf version: the leaf
    /// hash folded with each path hash. A verifier compares the key it tweaks with this root
    /// against the output key.
    public func merkleRoot(for script: Script) throws -> [UInt8] {
        let leaf = try TapLeaf(version: leafVersion, script: script)
        return path.reduce(leaf.hash) { TapTree.branchHash($0, $1) }
    }
}
