import Bitcoin
import CSodium

/// A node's public identity: an ed25519 public key, written as its 52-character z-base-32
/// form (the pkarr / Pubky convention).
///
/// Only keys libsodium accepts as ed25519 points are representable, and each pubky also
/// carries the X25519 form of its key (`noiseStaticKey`): that is the key a peer must prove
/// in the Noise handshake, so a pubky alone authenticates a peer.
public struct Pubky: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    public static let publicKeyLength = 32
    public static let encodedLength = 52

    /// The 32-byte ed25519 public key.
    public let publicKey: [UInt8]
    /// The key converted to X25519 (libsodium's `crypto_sign_ed25519_pk_to_curve25519`),
    /// the Noise static key of the node with this identity.
    public let noiseStaticKey: [UInt8]

    /// Validates `publicKey` as an ed25519 point: on the curve, canonically encoded, in the
    /// prime-order subgroup, not of small order. Stricter than a bare decompression check,
    /// but every honestly generated key passes and the X25519 conversion needs it. A key
    /// that passed before in this process is not checked again (`validated`).
    public init(publicKey: [UInt8]) throws(IdentityError) {
        guard publicKey.count == Self.publicKeyLength else { throw .invalidPublicKeyLength(publicKey.count) }
        if let known = Self.validated[publicKey] {
            self.publicKey = publicKey
            self.noiseStaticKey = known
            return
        }
        let converted = try Self.noiseStaticKey(validating: publicKey)
        self.publicKey = publicKey
        self.noiseStaticKey = converted
        Self.validated.remember(converted, for: publicKey)
    }

    /// The X25519 forms of the keys that passed `init(publicKey:)` in this process, so a
    /// pubky read again (a contact loaded for each swap's offers, a dialler seen before) is
    /// a lookup, not a scalar multiplication and a square root. A key that fails is not
    /// remembered and is checked each time.
    static let validated = BoundedMemo<[UInt8], [UInt8]>(capacity: 4_096)

    /// The check of `init(publicKey:)` and the X25519 conversion, always computed: what a
    /// key never seen before costs (the benchmarks' bounds time it).
    public static func noiseStaticKey(validating publicKey: [UInt8]) throws(IdentityError) -> [UInt8] {
        guard publicKey.count == publicKeyLength else { throw .invalidPublicKeyLength(publicKey.count) }
        requireSodium()
        guard crypto_core_ed25519_is_valid_point(publicKey) == 1 else { throw .invalidEd25519PublicKey }
        var converted = [UInt8](repeating: 0, count: DH25519.keyLength)
        guard crypto_sign_ed25519_pk_to_curve25519(&converted, publicKey) == 0 else {
            throw .invalidEd25519PublicKey
        }
        return converted
    }

    /// Parses the forms pkarr accepts: the bare 52-character key, `pk:<key>`, and a URL
    /// whose host's last label (a trailing dot allowed) is the key, with any user, port,
    /// path, query or fragment around it.
    public init(parsing text: String) throws(IdentityError) {
        let encoded: Substring
        if text.hasPrefix("pk:") {
            encoded = text.dropFirst(3)
        } else if text.utf8.count == Self.encodedLength {
            encoded = Substring(text)
        } else if let label = Self.topLevelLabel(ofURL: text) {
            encoded = label
        } else {
            throw .unrecognizedPubkyForm
        }
        guard encoded.utf8.count == Self.encodedLength else { throw .unrecognizedPubkyForm }
        try self.init(publicKey: try ZBase32.decode(encoded))
    }

    /// `LosslessStringConvertible`: nil for anything `init(parsing:)` rejects.
    public init?(_ description: String) {
        guard let parsed = try? Pubky(parsing: description) else { return nil }
        self = parsed
    }

    /// The 52-character z-base-32 form.
    public var z32: String { ZBase32.encode(publicKey) }
    /// The `pk:` URI form.
    public var uri: String { "pk:" + z32 }
    public var description: String { z32 }

    /// Checks a detached ed25519 signature made by this identity.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == Int(crypto_sign_BYTES) else { return false }
        requireSodium()
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// True when a Noise peer's X25519 static key belongs to this identity. The conversion
    /// runs from the pubky to X25519 and not back: ed25519 -> X25519 forgets the sign of x,
    /// so a pubky cannot be recovered from a static key alone.
    public func matches(noiseStaticKey key: [UInt8]) -> Bool {
        key == noiseStaticKey
    }

    /// The last label of a URL's host, lower-cased (host names are case-insensitive),
    /// or nil if `text` is not `scheme://authority...`.
    private static func topLevelLabel(ofURL text: String) -> Substring? {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let afterScheme = text[schemeEnd.upperBound...]
        var host = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = host.lastIndex(of: "@") {
            host = host[host.index(after: at)...]
        }
        if let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...].allSatisfy({ $0.isASCIIDigit }) {
            host = host[..<colon]
        }
        if host.hasSuffix(".") {
            host = host.dropLast()
        }
        let label = host.split(separator: ".", omittingEmptySubsequences: false).last ?? host
        return Substring(label.lowercased())
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
