import CSodium

/// The node's 32-byte secret seed, from which its ed25519 identity (and so its pubky and
/// Noise static key) is derived. Kept in a wiped-on-release buffer; never printed.
public struct NodeSeed: Sendable, CustomStringConvertible, CustomReflectable {
    public static let length = 32

    let secret: SecretBytes

    public init(bytes: [UInt8]) throws(IdentityError) {
        guard bytes.count == Self.length else { throw .invalidSeedLength(bytes.count) }
        secret = SecretBytes(copying: bytes)
    }

    /// A fresh seed from the operating system's secure random source.
    public static func generate() -> NodeSeed {
        requireSodium()
        return NodeSeed(secret: SecretBytes(count: length) { randombytes_buf($0.baseAddress!, $0.count) })
    }

    private init(secret: SecretBytes) {
        self.secret = secret
    }

    /// The raw seed, for writing the seed file (mode 0600) and nothing else. The buffer is
    /// valid only inside `body`.
    public func withUnsafeSecretBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try secret.withUnsafeBytes(body)
    }

    public var description: String { "NodeSeed(redacted)" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
