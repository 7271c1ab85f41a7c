/// A full Noise protocol name, `Noise_<pattern>_<dh>_<cipher>_<hash>`, restricted to what
/// this implementation provides: DH 25519, cipher ChaChaPoly, hash BLAKE2b or SHA256.
public struct NoiseProtocolName: Sendable, Equatable, CustomStringConvertible {
    public let pattern: HandshakePattern
    public let hashFunction: NoiseHashFunction

    /// The name exactly as the spec spells it; it is also the first input to the handshake hash.
    public var description: String { "Noise_\(pattern.name)_25519_ChaChaPoly_\(hashFunction.rawValue)" }

    public init(pattern: HandshakePattern, hashFunction: NoiseHashFunction) {
        self.pattern = pattern
        self.hashFunction = hashFunction
    }

    public init(_ name: String) throws(NoiseError) {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "Noise", parts[2] == "25519", parts[3] == "ChaChaPoly",
              let hashFunction = NoiseHashFunction(rawValue: String(parts[4]))
        else { throw .unsupportedProtocol(name) }
        self.init(pattern: try HandshakePattern(name: String(parts[1])), hashFunction: hashFunction)
    }

    /// What peernode speaks between nodes: XK (the dialer knows the listener's key in
    /// advance and reveals its own only after the listener is authenticated), X25519,
    /// ChaCha20-Poly1305 and BLAKE2b.
    public static let peernode: NoiseProtocolName = {
        do {
            return try NoiseProtocolName("Noise_XK_25519_ChaChaPoly_BLAKE2b")
        } catch {
            preconditionFailure("the built-in pattern table lacks XK: \(error)")
        }
    }()

    /// The prologue peernode binds into every handshake, so a handshake for another
    /// protocol or version cannot be replayed as ours.
    public static let peernodePrologue: [UInt8] = Array("peernode/1".utf8)
}
