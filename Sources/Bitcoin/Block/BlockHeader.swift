/// The 80-byte block header: what proof of work commits to and what the block hash is
/// computed over.
public struct BlockHeader: Hashable, Sendable {
    public static let byteCount = 80

    public var version: Int32
    public var previousBlockHash: BlockHash
    /// The merkle root of the block's txids, in internal byte order.
    public var merkleRoot: [UInt8]
    /// Seconds since the Unix epoch.
    public var time: UInt32
    /// The proof-of-work target in compact form (`nBits`).
    public var bits: UInt32
    public var nonce: UInt32

    public init(version: Int32, previousBlockHash: BlockHash, merkleRoot: [UInt8], time: UInt32, bits: UInt32,
                nonce: UInt32) {
        precondition(merkleRoot.count == 32, "a merkle root is 32 bytes")
        self.version = version
        self.previousBlockHash = previousBlockHash
        self.merkleRoot = merkleRoot
        self.time = time
        self.bits = bits
        self.nonce = nonce
    }

    public var serialized: [UInt8] {
        var writer = ByteWriter(capacity: Self.byteCount)
        write(to: &writer)
        return writer.bytes
    }

    public var hash: BlockHash { try! BlockHash(bytes: SHA256.doubleHash(serialized)) }

    /// The target `bits` encodes, or nil when the encoding is negative or overflows 256 bits.
    public var target: Target? { Target(bits: bits) }

    /// Core's `CheckProofOfWork`: `bits` must decode to a non-zero target no easier than
    /// `powLimit`, and the hash, read as a little-endian 256-bit number, must not exceed it.
    public func hasValidProofOfWork(powLimit: Target) -> Bool {
        guard let target, !target.isZero, target <= powLimit else { return false }
        return Target(littleEndianBytes: hash.bytes) <= target
    }

    public init(bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        self = try BlockHeader.read(from: &reader)
        guard reader.isAtEnd else { throw BitcoinError.trailingBytes(what: "block header", count: reader.remaining) }
    }

    func write(to writer: inout ByteWriter) {
        writer.write(version)
        writer.write(previousBlockHash.bytes)
        writer.write(merkleRoot)
        writer.write(time)
        writer.write(bits)
        writer.write(nonce)
    }

    static func read(from reader: inout ByteReader) throws -> BlockHeader {
        let version = try reader.readInt32()
        let previous = try BlockHash(bytes: try reader.read(count: 32, what: "previous block hash"))
        let merkleRoot = try reader.read(count: 32, what: "merkle root")
        return BlockHeader(version: version, previousBlockHash: previous, merkleRoot: merkleRoot,
                           time: try reader.readUInt32(), bits: try reader.readUInt32(), nonce: try reader.readUInt32())
    }
}
