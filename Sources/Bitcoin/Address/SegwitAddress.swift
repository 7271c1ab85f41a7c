/// A native segwit address (BIP173, BIP350): an HRP naming the network, a witness
/// version 0...16 and a witness program of 2...40 bytes.
///
/// Decoding enforces every rule the BIPs give: v0 programs are 20 or 32 bytes
/// (BIP141), v0 uses the bech32 checksum and v1+ bech32m, and the 5-to-8-bit
/// regrouping has at most 4 zero padding bits.
public struct SegwitAddress: Sendable, Hashable {
    public let hrp: String
    public let version: UInt8
    public let program: [UInt8]

    public static let versions: ClosedRange<UInt8> = 0...16
    public static let programLengths: ClosedRange<Int> = 2...40
    /// The longest HRP with which every valid address still fits in 90 characters:
    /// separator, version and checksum take 8, a 40-byte program 64.
    static let maxHRPLength = Bech32.maxLength - 8 - 64

    /// Builds an address after checking version and program against the rules above.
    public init(hrp: String, version: UInt8, program: [UInt8]) throws {
        let lower = hrp.lowercased()
        guard (1...Self.maxHRPLength).contains(lower.utf8.count), lower.utf8.allSatisfy({ (33...126).contains($0) }) else {
            throw BitcoinError.invalidAddress("segwit HRP must be 1 to \(Self.maxHRPLength) printable ASCII characters")
        }
        try Self.check(version: version, program: program)
        self.hrp = lower
        self.version = version
        self.program = program
    }

    /// Decodes a segwit address string with any HRP; callers match `hrp` to a network.
    public init(_ string: some StringProtocol) throws {
        let decoded = try Bech32.decode(string)
        guard let version = decoded.data.first else {
            throw BitcoinError.invalidAddress("segwit address has no witness version")
        }
        guard Self.versions.contains(version) else {
            throw BitcoinError.invalidAddress("witness version \(version) does not exist (0 to 16)")
        }
        guard let program = Bech32.convertBits(Array(decoded.data.dropFirst()), from: 5, to: 8, pad: false) else {
            throw BitcoinError.invalidAddress("segwit address has invalid padding in its program")
        }
        try Self.check(version: version, program: program)
        // Checked last so that a malformed program is reported as such even when the
        // checksum variant is also wrong (BIP173-era v1+ strings).
        let expected: Bech32.Encoding = version == 0 ? .bech32 : .bech32m
        guard decoded.encoding == expected else {
            // BIP350: v1+ with the old checksum is the likely result of old software.
            throw BitcoinError.invalidAddress(version == 0
                ? "witness v0 address must use the bech32 checksum, not bech32m"
                : "witness v\(version) address must use the bech32m checksum (BIP350), not bech32")
        }
        self.hrp = decoded.hrp
        self.version = version
        self.program = program
    }

    /// The lowercase string: bech32 for v0, bech32m for v1 and later.
    public var encoded: String {
        let data = [version] + (Bech32.convertBits(program, from: 8, to: 5, pad: true) ?? [])
        return Bech32.encode(hrp: hrp, data: data, encoding: version == 0 ? .bech32 : .bech32m)
    }

    static func check(version: UInt8, program: [UInt8]) throws {
        guard versions.contains(version) else {
            throw BitcoinError.invalidAddress("witness version \(version) does not exist (0 to 16)")
        }
        guard programLengths.contains(program.count) else {
            throw BitcoinError.invalidAddress("witness program is \(program.count) bytes, outside 2 to 40")
        }
        guard version != 0 || program.count == 20 || program.count == 32 else {
            throw BitcoinError.invalidAddress("witness v0 program is \(program.count) bytes, not 20 or 32")
        }
    }
}
