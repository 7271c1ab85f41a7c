/// A private key in wallet import format: Base58Check of a version byte (0x80 on
/// mainnet, 0xef on the test networks), the 32-byte key, and 0x01 when the matching
/// public key is used compressed.
///
/// Holds secret material: its descriptions never show the key.
public struct WIF: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public let privateKey: [UInt8]
    public let isCompressed: Bool

    static let keySize = 32
    static let compressionFlag: UInt8 = 0x01

    /// The secp256k1 group order n; a private key is an integer in 1...n-1.
    static let curveOrder: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
        0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
    ]

    public init(privateKey: [UInt8], isCompressed: Bool) throws {
        guard privateKey.count == Self.keySize else {
            throw BitcoinError.invalidKey("private key must be \(Self.keySize) bytes, got \(privateKey.count)")
        }
        // Big-endian byte arrays of equal length compare like the integers they hold.
        guard privateKey.contains(where: { $0 != 0 }), privateKey.lexicographicallyPrecedes(Self.curveOrder) else {
            throw BitcoinError.invalidKey("private key is zero or not below the secp256k1 group order")
        }
        self.privateKey = privateKey
        self.isCompressed = isCompressed
    }

    /// Parses a WIF key for `network`, accepting the keys of every network that
    /// shares its version byte (testnet, signet and regtest all use 0xef).
    public init(_ string: some StringProtocol, network: Network) throws {
        let (key, networks) = try WIF.decodeAnyNetwork(string)
        guard networks.contains(network) else {
            throw BitcoinError.invalidKey("WIF key is for \(Network.describe(networks)), this node runs on \(network.rawValue)")
        }
        self = key
    }

    /// Parses a WIF key of any network, with every network whose version byte it carries.
    public static func decodeAnyNetwork(_ string: some StringProtocol) throws -> (key: WIF, networks: Set<Network>) {
        // Base58 decoding is quadratic; no WIF string is longer than 52 characters.
        guard string.utf8.count <= 60 else {
            throw BitcoinError.invalidKey("string is too long to be a WIF private key")
        }
        let payload: [UInt8]
        do {
            payload = try Base58Check.decode(string)
        } catch BitcoinError.invalidAddress(let why) {
            // Base58Check reports as an address error; this input is a key.
            throw BitcoinError.invalidKey(why)
        }
        guard let version = payload.first else {
            throw BitcoinError.invalidKey("WIF private key is empty")
        }
        let networks = Set(Network.allCases.filter { $0.wifVersion == version })
        guard !networks.isEmpty else {
            throw BitcoinError.invalidKey("version byte \(version) is not a WIF private key of any network")
        }
        let body = payload.dropFirst()
        switch body.count {
        case keySize:
            return (try WIF(privateKey: Array(body), isCompressed: false), networks)
        case keySize + 1 where body.last == compressionFlag:
            return (try WIF(privateKey: Array(body.dropLast()), isCompressed: true), networks)
        default:
            throw BitcoinError.invalidKey("WIF private key holds \(body.count) bytes, not 32 or 32 plus compression flag 0x01")
        }
    }

    public func encoded(for network: Network) -> String {
        Base58Check.encode([network.wifVersion] + privateKey + (isCompressed ? [Self.compressionFlag] : []))
    }

    public var description: String {
        "WIF(<private key redacted>, compressed: \(isCompressed))"
    }

    public var debugDescription: String { description }
}
