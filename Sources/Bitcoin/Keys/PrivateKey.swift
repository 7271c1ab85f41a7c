import CSecp256k1
import CSodium

/// A secp256k1 secret key: 32 big-endian bytes holding an integer in 1...n-1.
///
/// Its bytes never appear in `description`, `debugDescription` or reflection (`dump`),
/// so a key that ends up in a log line or an error shows only that it is a key.
public struct PrivateKey: Sendable {
    public static let byteCount = 32

    /// The raw 32-byte secret. Read it only to store or derive; never log it.
    public let bytes: [UInt8]

    /// Accepts exactly 32 bytes encoding an integer in 1...n-1.
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw BitcoinError.invalidKey("a private key is \(Self.byteCount) bytes, got \(bytes.count)")
        }
        try Secp256k1Context.call(.invalidKey("private key is zero or not below the curve order")) {
            secp256k1_ec_seckey_verify($0, bytes)
        }
        self.bytes = bytes
    }

    /// A fresh key from the operating system's CSPRNG.
    public static func random() -> PrivateKey {
        while true {
            // A random 256-bit value is out of range with probability ~2^-128; just retry.
            if let key = try? PrivateKey(Secp256k1Context.randomBytes(count: byteCount)) { return key }
        }
    }

    /// The public key P = k·G.
    public var publicKey: PublicKey {
        var pubkey = secp256k1_pubkey()
        Secp256k1Context.expect("secp256k1_ec_pubkey_create") { secp256k1_ec_pubkey_create($0, &pubkey, bytes) }
        return PublicKey(validated: pubkey)
    }

    /// The BIP340 x-only form of `publicKey` (the key a Schnorr signature by this key checks against).
    public var xOnlyPublicKey: XOnlyPublicKey { publicKey.xOnlyPublicKey }

    /// Runs `body` with a libsecp256k1 keypair for this key, wiping the keypair afterwards
    /// (it holds a copy of the secret).
    func withKeypair<R>(_ body: (inout secp256k1_keypair) throws -> R) rethrows -> R {
        var keypair = secp256k1_keypair()
        defer { withUnsafeMutableBytes(of: &keypair) { sodium_memzero($0.baseAddress, $0.count) } }
        Secp256k1Context.expect("secp256k1_keypair_create") { secp256k1_keypair_create($0, &keypair, bytes) }
        return try body(&keypair)
    }
}

extension PrivateKey: Equatable {
    /// Constant-time comparison, so equality checks do not leak where two secrets differ.
    public static func == (lhs: PrivateKey, rhs: PrivateKey) -> Bool {
        sodium_memcmp(lhs.bytes, rhs.bytes, byteCount) == 0
    }
}

extension PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "PrivateKey(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
