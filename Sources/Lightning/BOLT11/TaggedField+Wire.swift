import Bitcoin

/// Reading and writing one field's data words.
extension TaggedField {
    /// The P2PKH and P2SH fallback "versions" (after the witness versions 0...16).
    static let p2pkhVersion: UInt8 = 17
    static let p2shVersion: UInt8 = 18

    /// Interprets one field. Throws only where the BOLT gives no skip rule and the field
    /// cannot be meant any other way (a description that is not UTF-8, a route hint with
    /// a bad key or a partial hop, a number over 64 bits); `p`, `h`, `s`, `n` of the
    /// wrong length and `f` of an unknown version or bad program come back `.skipped`.
    static func decode(type: UInt8, words: ArraySlice<UInt8>) throws(BOLT11Error) -> TaggedField {
        let skipped = TaggedField.skipped(type: type, words: Array(words))
        switch type {
        case paymentHashType, paymentSecretType, descriptionHashType:
            guard words.count == hashWords else { return skipped }
            let bytes = FiveBitWords.toBytes(words)
            switch type {
            case paymentHashType: return .paymentHash(bytes)
            case paymentSecretType: return .paymentSecret(bytes)
            default: return .descriptionHash(bytes)
            }
        case payeeNodeIDType:
            // 53 words make 33 bytes, which parse only as a compressed (02/03) key.
            guard words.count == pubkeyWords, let key = try? PublicKey(FiveBitWords.toBytes(words)) else {
                // Not a "valid n field": the signature is checked by recovery instead.
                return skipped
            }
            return .payeeNodeID(key)
        case descriptionType:
            guard let text = String(validating: FiveBitWords.toBytes(words), as: UTF8.self) else {
                throw .malformedField(tag: tag(type), reason: "description is not valid UTF-8")
            }
            return .description(text)
        case expiryType, cltvType:
            guard let value = FiveBitWords.number(words) else {
                throw .malformedField(tag: tag(type), reason: "number does not fit in 64 bits")
            }
            return type == expiryType ? .expiry(value) : .minFinalCLTVExpiryDelta(value)
        case fallbackType:
            guard let version = words.first,
                  let address = fallbackAddress(version: version, program: FiveBitWords.toBytes(words.dropFirst())) else {
                return skipped
            }
            return .fallback(address)
        case routeHintType:
            let bytes = FiveBitWords.toBytes(words)
            guard !bytes.isEmpty, bytes.count % RouteHintHop.byteCount == 0 else {
                throw .malformedField(tag: "r", reason: "\(bytes.count) bytes is not a whole number of 51-byte hops")
            }
            var hops = [RouteHintHop]()
            for start in stride(from: 0, to: bytes.count, by: RouteHintHop.byteCount) {
                guard let hop = RouteHintHop(bytes: bytes[start..<start + RouteHintHop.byteCount]) else {
                    throw .malformedField(tag: "r", reason: "hop \(hops.count + 1) has a node id that is not a public key")
                }
                hops.append(hop)
            }
            return .routeHint(hops)
        case featuresType:
            return .features(FeatureBits(words: words))
        case metadataType:
            return .metadata(FiveBitWords.toBytes(words))
        default:
            return skipped
        }
    }

    /// The field's data words, in the writer's canonical form (minimal numbers and
    /// feature vectors, zero padding).
    var words: [UInt8] {
        switch self {
        case .paymentHash(let bytes), .paymentSecret(let bytes), .descriptionHash(let bytes), .metadata(let bytes):
            return FiveBitWords.fromBytes(bytes)
        case .description(let text):
            return FiveBitWords.fromBytes(Array(text.utf8))
        case .expiry(let value), .minFinalCLTVExpiryDelta(let value):
            return FiveBitWords.minimal(value)
        case .fallback(let address):
            let (version, program) = Self.fallbackParts(address)
            return [version] + FiveBitWords.fromBytes(program)
        case .routeHint(let hops):
            return FiveBitWords.fromBytes(hops.flatMap(\.bytes))
        case .features(let features):
            return features.words
        case .payeeNodeID(let key):
            return FiveBitWords.fromBytes(key.compressed)
        case .skipped(_, let words):
            return words
        }
    }

    /// Checks what the type alone cannot: byte lengths the wire form fixes, and a length
    /// that fits `data_length`.
    func validateForEncoding() throws(BOLT11Error) {
        switch self {
        case .paymentHash(let bytes), .paymentSecret(let bytes), .descriptionHash(let bytes):
            guard bytes.count == 32 else {
                throw .unencodable("field '\(tag)' holds 32 bytes, got \(bytes.count)")
            }
        case .routeHint(let hops):
            guard !hops.isEmpty else { throw .unencodable("a route hint needs at least one hop") }
        case .fallback(let address):
            do {
                try address.validate()
            } catch {
                throw .unencodable("fallback address is malformed: \(error)")
            }
        case .skipped(let type, let words):
            guard type < 32, words.allSatisfy({ $0 < 32 }) else {
                throw .unencodable("a raw field's type and words must be 5-bit values")
            }
        default:
            break
        }
        guard words.count <= Self.maxWords else {
            throw .unencodable("field '\(tag)' needs \(words.count) words; the most a field holds is \(Self.maxWords) (639 bytes)")
        }
    }

    private static func fallbackAddress(version: UInt8, program: [UInt8]) -> Address? {
        switch version {
        case p2pkhVersion:
            return program.count == 20 ? .p2pkh(pubkeyHash: program) : nil
        case p2shVersion:
            return program.count == 20 ? .p2sh(scriptHash: program) : nil
        case 0...16:
            return try? Address(witnessVersion: version, program: program)
        default:
            return nil
        }
    }

    private static func fallbackParts(_ address: Address) -> (version: UInt8, program: [UInt8]) {
        switch address {
        case .p2pkh(let hash): return (p2pkhVersion, hash)
        case .p2sh(let hash): return (p2shVersion, hash)
        case .p2wpkh, .p2wsh, .p2tr, .witness:
            // Witness cases always have witness parts.
            return address.witnessParts!
        }
    }
}
