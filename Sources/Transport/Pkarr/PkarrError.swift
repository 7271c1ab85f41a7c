/// Why a DNS packet, a signed packet or a relay payload was refused. Hostile bytes end here,
/// never in a crash: every read is bounds-checked and every name is bounded. The messages
/// name the part that was wrong and never quote the peer's bytes.
public enum PkarrError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes end inside this part of the packet.
    case truncated(String)
    /// A DNS packet is at most 1,000 bytes (pkarr, `design/base.md`).
    case packetTooLarge(Int)
    /// A relay payload is at most 1,072 bytes: signature, timestamp and packet.
    case payloadTooLarge(Int)
    /// Shorter than a signature and a timestamp.
    case payloadTooShort(Int)
    /// A label of the wrong length, or with a byte that is not printable ASCII (or a dot).
    case badLabel(String)
    /// A name over 255 bytes in wire form.
    case nameTooLong
    /// A compression pointer that points forward, at itself, into the header or in a loop,
    /// or one where the name must not be compressed (an SVCB target).
    case badPointer
    /// The reserved label types 0x40 and 0x80.
    case badLabelType
    /// A record whose data does not fit its type (the type's mnemonic, what is wrong).
    case badRecordData(String, String)
    /// Bytes left after the last record the header counts.
    case trailingBytes(Int)
    /// A record this codec was asked to encode is malformed (e.g. an A record of 5 bytes).
    case invalidRecord(String)
    /// The ed25519 signature over the BEP 44 bencoding does not verify for the key.
    case badSignature
    /// The timestamp is not a BEP 44 sequence number (it must fit a signed 64-bit integer).
    case invalidTimestamp
    /// The key (in the path or the packet) is not a valid pubky.
    case invalidPublicKey
    /// A relay URL this node cannot use (why).
    case invalidRelayURL(String)

    public var description: String {
        switch self {
        case .truncated(let part): return "the DNS packet ends inside \(part)"
        case .packetTooLarge(let count): return "the DNS packet is \(count) bytes; pkarr allows at most \(DNSPacket.maxLength)"
        case .payloadTooLarge(let count):
            return "the relay payload is \(count) bytes; at most \(SignedPacket.maxPayloadLength) are allowed"
        case .payloadTooShort(let count):
            return "the relay payload is \(count) bytes, shorter than a signature and a timestamp (72)"
        case .badLabel(let reason): return "a DNS label is invalid: \(reason)"
        case .nameTooLong: return "a DNS name is longer than 255 bytes"
        case .badPointer: return "a DNS name has a compression pointer that is not allowed (forward, into the header, a loop, or in an SVCB target)"
        case .badLabelType: return "a DNS name uses a reserved label type"
        case .badRecordData(let type, let reason): return "a \(type) record is malformed: \(reason)"
        case .trailingBytes(let count): return "the DNS packet has \(count) bytes after its last record"
        case .invalidRecord(let reason): return "cannot encode the record: \(reason)"
        case .badSignature: return "the packet's signature does not verify for its public key"
        case .invalidTimestamp: return "the packet's timestamp is not a valid BEP 44 sequence number"
        case .invalidPublicKey: return "the key is not a valid pubky"
        case .invalidRelayURL(let reason): return "not a pkarr relay URL: \(reason)"
        }
    }
}
