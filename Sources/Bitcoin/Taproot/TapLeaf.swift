/// One script of a taproot script tree, with the leaf version that says how it is run.
public struct TapLeaf: Hashable, Sendable {
    /// Leaf version 0xc0: tapscript (BIP342).
    public static let tapscriptVersion: UInt8 = 0xc0

    public let version: UInt8
    public let script: Script

    /// A tapscript leaf (version 0xc0).
    public init(script: Script) {
        version = Self.tapscriptVersion
        self.script = script
    }

    /// A leaf of any version. The version must be even, because its low bit shares the
    /// control block's first byte with the output key's parity, and must not be 0x50, which
    /// would make the control block look like an annex (BIP341).
    public init(version: UInt8, script: Script) throws {
        guard version & 1 == 0 else {
            throw BitcoinError.invalidScript("a tapleaf version is even, got 0x\(String(version, radix: 16))")
        }
        guard version != 0x50 else {
            throw BitcoinError.invalidScript("0x50 cannot be a tapleaf version (it is the annex tag)")
        }
        self.version = version
        self.script = script
    }

    /// TaggedHash("TapLeaf", version || compact_size(len) || script).
    public var hash: [UInt8] {
        var writer = ByteWriter(capacity: script.count + 4)
        writer.write(version)
        writer.writeVarBytes(script.bytes)
        return TaggedHash.hash(tag: "TapLeaf", writer.bytes)
    }
}
