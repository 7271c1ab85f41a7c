/// A pkarr signed packet: a DNS packet with its ed25519 signature and timestamp, as the
/// Mainline DHT stores it (BEP 44 mutable item: `k` the key, `seq` the timestamp, `v` the
/// packet) and relays pass it on. Only verified packets exist: every initializer checks the
/// signature and parses the DNS packet.
///
/// Canonical form: key (32) | signature (64) | timestamp (8, big-endian, microseconds) |
/// DNS packet. A relay's body omits the key, which is in its path.
public struct SignedPacket: Sendable, Hashable {
    public static let signatureLength = 64
    public static let timestampLength = 8
    /// 64 + 8 + 1,000: the largest relay body (`design/relays.md`, 413 above it).
    public static let maxPayloadLength = signatureLength + timestampLength + DNSPacket.maxLength

    public let pubky: Pubky
    public let signature: [UInt8]
    /// Microseconds since the Unix epoch; BEP 44's `seq`, so newer packets win.
    public let timestamp: UInt64
    /// The DNS packet exactly as signed.
    public let encodedPacket: [UInt8]
    public let packet: DNSPacket

    /// Signs `packet` as `identity` at `timestamp`.
    public static func sign(_ packet: DNSPacket, by identity: NodeIdentity, timestamp: UInt64) throws(PkarrError) -> SignedPacket {
        guard timestamp <= UInt64(Int64.max) else { throw .invalidTimestamp }
        let encoded = try packet.encode()
        let signature = identity.sign(signable(timestamp: timestamp, packet: encoded))
        return SignedPacket(pubky: identity.pubky, signature: signature, timestamp: timestamp,
                            encodedPacket: encoded, packet: try DNSPacket(decoding: encoded))
    }

    /// A relay body for `pubky` (the key from the request path), verified.
    public init(pubky: Pubky, relayPayload payload: [UInt8]) throws(PkarrError) {
        guard payload.count <= Self.maxPayloadLength else { throw .payloadTooLarge(payload.count) }
        guard payload.count >= Self.signatureLength + Self.timestampLength else { throw .payloadTooShort(payload.count) }
        let signature = Array(payload[0..<Self.signatureLength])
        let timestamp = payload[Self.signatureLength..<(Self.signatureLength + Self.timestampLength)]
            .reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let encoded = Array(payload[(Self.signatureLength + Self.timestampLength)...])
        guard timestamp <= UInt64(Int64.max) else { throw .invalidTimestamp }
        guard pubky.isValidSignature(signature, for: Self.signable(timestamp: timestamp, packet: encoded)) else {
            throw .badSignature
        }
        self.init(pubky: pubky, signature: signature, timestamp: timestamp, encodedPacket: encoded,
                  packet: try DNSPacket(decoding: encoded))
    }

    /// The canonical form (key first), verified.
    public init(bytes: [UInt8]) throws(PkarrError) {
        guard bytes.count >= Pubky.publicKeyLength else { throw .payloadTooShort(bytes.count) }
        let pubky: Pubky
        do {
            pubky = try Pubky(publicKey: Array(bytes.prefix(Pubky.publicKeyLength)))
        } catch {
            throw .invalidPublicKey
        }
        try self.init(pubky: pubky, relayPayload: Array(bytes.dropFirst(Pubky.publicKeyLength)))
    }

    private init(pubky: Pubky, signature: [UInt8], timestamp: UInt64, encodedPacket: [UInt8], packet: DNSPacket) {
        self.pubky = pubky
        self.signature = signature
        self.timestamp = timestamp
        self.encodedPacket = encodedPacket
        self.packet = packet
    }

    /// BEP 44's signed bytes for a mutable item without salt: `3:seqi<seq>e1:v<len>:<v>`.
    public static func signable(timestamp: UInt64, packet: [UInt8]) -> [UInt8] {
        Array("3:seqi\(timestamp)e1:v\(packet.count):".utf8) + packet
    }

    /// signature | timestamp | DNS packet: what a relay takes and gives.
    public var relayPayload: [UInt8] {
        Self.relayPayload(signature: signature, timestamp: timestamp, encodedPacket: encodedPacket)
    }

    /// The relay layout of any three parts, verified or not (a test relay forges with it).
    public static func relayPayload(signature: [UInt8], timestamp: UInt64, encodedPacket: [UInt8]) -> [UInt8] {
        signature + (0..<8).reversed().map { UInt8((timestamp >> UInt64($0 * 8)) & 0xff) } + encodedPacket
    }

    /// key | relay payload.
    public var bytes: [UInt8] { pubky.publicKey + relayPayload }

    /// The key's zone: its z-base-32 form as a single-label name, the pkarr TLD.
    public var zone: DNSName { Self.zone(of: pubky) }

    public static func zone(of pubky: Pubky) -> DNSName { DNSName(checkedLabels: [pubky.z32]) }

    /// pkarr's order: the later timestamp wins; on a tie, the larger encoded packet (so
    /// every cache settles on the same one).
    public func isMoreRecent(than other: SignedPacket) -> Bool {
        timestamp == other.timestamp ? other.encodedPacket.lexicographicallyPrecedes(encodedPacket)
            : timestamp > other.timestamp
    }

    /// The smallest TTL among the answers (how long the packet may be cached), nil when it
    /// has none.
    public var minimumTTL: UInt32? { packet.answers.map(\.ttl).min() }
}
