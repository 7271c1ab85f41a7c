import HTLC
import Transport

/// A provider's capability descriptor: the terms of each swap direction it runs, published
/// as TXT records in its pkarr packet (`_swap.<node key>`) and so covered by the packet's
/// signature (docs/PUBKY.md, "Capability descriptor"). Clients rank providers from it
/// without asking them anything; the provider's signed offer and quote still bind: a
/// descriptor only ranks.
///
/// One TXT record per direction, each a single string of `key=value` pairs:
///
///     v=swap1;net=regtest;dir=ln_to_onchain;min=14730;max=1000000;base=300;ppm=1000;fee=373;conf=1;timeout=144;ct=taproot_boltz,p2wsh_v2;exp=1700000600
///
/// `min`/`max` are the direction's amounts as in the offer (for ln_to_onchain the lock,
/// X + claim fee; for onchain_to_ln the invoice), `base` + `ppm` the service fee, `fee` the
/// provider's on-chain fee at publishing time, `conf` its confirmations, `timeout` its HTLC
/// timeout in blocks, `ct` the contract types it locks, `exp` the Unix time after which the
/// descriptor is not used. `v=swap1` comes first; a record of another version is skipped.
/// Unknown keys are ignored (later versions may add some); a record missing a key,
/// repeating one, or out of range is not a descriptor.
public struct CapabilityDescriptor: Sendable, Hashable {
    public static let label = "_swap"
    public static let version = "swap1"

    public let network: String
    public let terms: [DirectionTerms]
    /// Contract type names, as an offer's `features` lists them.
    public let contractTypes: [String]
    public let expiresAtUnix: UInt64

    public init(network: String, terms: [DirectionTerms], contractTypes: [String], expiresAtUnix: UInt64) {
        self.network = network
        self.terms = terms
        self.contractTypes = contractTypes
        self.expiresAtUnix = expiresAtUnix
    }

    /// What a provider publishes for its current offer, valid until `expiresAtUnix`.
    public init(offer: Offer, expiresAtUnix: UInt64) {
        let terms = offer.directionTerms.isEmpty
            ? [DirectionTerms(direction: .lightningToOnchain, minAmountSat: offer.minAmountSat, maxAmountSat: offer.maxAmountSat,
                              baseFeeSat: offer.baseFeeSat, feePPM: offer.feePPM, onchainFeeSat: offer.onchainFeeSat,
                              requiredConfirmations: offer.requiredConfirmations, htlcTimeoutBlocks: offer.htlcTimeoutBlocks)]
            : offer.directionTerms
        self.init(network: offer.network, terms: terms,
                  contractTypes: OfferFeature.contractTypes(in: offer.features).map(\.rawValue), expiresAtUnix: expiresAtUnix)
    }

    /// The TXT strings, one per direction.
    public var texts: [String] {
        terms.map { terms in
            var pairs = ["v=\(Self.version)", "net=\(network)", "dir=\(terms.direction.rawValue)",
                         "min=\(terms.minAmountSat)", "max=\(terms.maxAmountSat)", "base=\(terms.baseFeeSat)",
                         "ppm=\(terms.feePPM)", "fee=\(terms.onchainFeeSat)", "conf=\(terms.requiredConfirmations)",
                         "timeout=\(terms.htlcTimeoutBlocks)"]
            if !contractTypes.isEmpty { pairs.append("ct=" + contractTypes.joined(separator: ",")) }
            pairs.append("exp=\(expiresAtUnix)")
            return pairs.joined(separator: ";")
        }
    }

    /// The TXT records under `_swap.<node>`.
    public func records(node: Pubky, ttl: UInt32) -> [DNSRecord] {
        let name = DNSName.descriptorName(of: node)
        return texts.map { DNSRecord(name: name, ttl: ttl, data: .text($0)) }
    }

    /// The descriptor in `packet` (the node key's), or why there is none usable. Records of
    /// another version are skipped; the first malformed `swap1` record makes the whole
    /// descriptor unusable, since a provider that publishes one means every word of it.
    public static func read(from packet: SignedPacket) -> Result<CapabilityDescriptor, DescriptorError> {
        let texts = packet.packet.answers(named: DNSName.descriptorName(of: packet.pubky)).compactMap(\.data.joinedText)
        guard !texts.isEmpty else { return .failure(.none) }
        var network: String?
        var expiry: UInt64?
        var contractTypes: [String]?
        var terms: [DirectionTerms] = []
        for text in texts {
            // A record of another version (or none) is skipped unread: its syntax may differ.
            guard text == "v=\(version)" || text.hasPrefix("v=\(version);") else { continue }
            let fields: [String: String]
            switch Self.fields(text) {
            case .success(let parsed): fields = parsed
            case .failure(let error): return .failure(error)
            }
            let record: (String, DirectionTerms, [String], UInt64)
            switch Self.record(fields) {
            case .success(let parsed): record = parsed
            case .failure(let error): return .failure(error)
            }
            guard network == nil || network == record.0, expiry == nil || expiry == record.3,
                  contractTypes == nil || contractTypes == record.2 else {
                return .failure(.malformed("its records disagree on net, exp or ct"))
            }
            guard !terms.contains(where: { $0.direction == record.1.direction }) else {
                return .failure(.malformed("two records for \(record.1.direction.rawValue)"))
            }
            (network, expiry, contractTypes) = (record.0, record.3, record.2)
            terms.append(record.1)
        }
        guard let network, let expiry, let contractTypes, !terms.isEmpty else { return .failure(.none) }
        return .success(CapabilityDescriptor(network: network, terms: terms, contractTypes: contractTypes, expiresAtUnix: expiry))
    }

    /// The terms as an offer body to price with the route selectors (`RouteSelector`,
    /// `SubmarineSelector`); never sent, never a promise.
    public func offerTerms(provider: Pubky) -> Offer {
        let top = terms.first { $0.direction == .lightningToOnchain } ?? terms[0]
        return Offer(requestID: "descriptor", offerID: "descriptor", providerPubky: provider, network: network,
                     directions: terms.map(\.direction.rawValue), minAmountSat: top.minAmountSat, maxAmountSat: top.maxAmountSat,
                     baseFeeSat: top.baseFeeSat, feePPM: top.feePPM, onchainFeeSat: top.onchainFeeSat, feeRateSatPerVByte: 0,
                     requiredConfirmations: top.requiredConfirmations, htlcTimeoutBlocks: top.htlcTimeoutBlocks,
                     validUntilUnix: expiresAtUnix, features: contractTypes, directionTerms: terms)
    }

    /// `key=value;...` with every key once.
    private static func fields(_ text: String) -> Result<[String: String], DescriptorError> {
        var fields: [String: String] = [:]
        for pair in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { return .failure(.malformed("a part without '='")) }
            let key = String(pair[..<equals])
            guard fields[key] == nil else { return .failure(.malformed("\(key) appears twice")) }
            fields[key] = String(pair[pair.index(after: equals)...])
        }
        return .success(fields)
    }

    private static func record(_ fields: [String: String]) -> Result<(String, DirectionTerms, [String], UInt64), DescriptorError> {
        func number(_ key: String, _ range: ClosedRange<Int64>) -> Int64? {
            guard let text = fields[key], !text.isEmpty, text.utf8.count <= 19,
                  text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int64(text), range.contains(value) else { return nil }
            return value
        }
        guard let network = fields["net"], !network.isEmpty, network.utf8.count <= 32 else { return .failure(.malformed("net")) }
        guard let direction = fields["dir"].flatMap(SwapDirection.init(rawValue:)) else { return .failure(.malformed("dir")) }
        let sats: ClosedRange<Int64> = 0...Amounts.maximumSat
        guard let min = number("min", sats), let max = number("max", sats), min <= max else {
            return .failure(.malformed("min or max"))
        }
        guard let base = number("base", sats) else { return .failure(.malformed("base")) }
        guard let ppm = number("ppm", 0...Amounts.million) else { return .failure(.malformed("ppm")) }
        guard let fee = number("fee", sats) else { return .failure(.malformed("fee")) }
        let lowest: Int64 = direction == .onchainToLightning ? 1 : 0
        guard let confirmations = number("conf", lowest...1_000) else { return .failure(.malformed("conf")) }
        guard let timeout = number("timeout", 1...65_535) else { return .failure(.malformed("timeout")) }
        guard let expiry = number("exp", 0...Int64.max) else { return .failure(.malformed("exp")) }
        let types = fields["ct"].map { $0.split(separator: ",").map(String.init) } ?? []
        guard types.count <= 8, types.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 32 }) else { return .failure(.malformed("ct")) }
        let terms = DirectionTerms(direction: direction, minAmountSat: min, maxAmountSat: max, baseFeeSat: base, feePPM: ppm,
                                   onchainFeeSat: fee, requiredConfirmations: Int(confirmations), htlcTimeoutBlocks: Int(timeout))
        return .success((network, terms, types, UInt64(expiry)))
    }
}

/// Why a packet gives no usable descriptor.
public enum DescriptorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `_swap` TXT record of version swap1: the contact publishes no descriptor.
    case none
    /// A swap1 record that does not parse (which part).
    case malformed(String)
    /// Past its `exp`: the provider has not republished it (it may be gone).
    case expired

    public var description: String {
        switch self {
        case .none: return "publishes no capability descriptor"
        case .malformed(let part): return "its capability descriptor is malformed (\(part))"
        case .expired: return "its capability descriptor has expired (not republished)"
        }
    }
}

extension DNSName {
    /// `_swap.<node>`, where a provider's descriptor lives.
    public static func descriptorName(of node: Pubky) -> DNSName {
        // Both labels are valid by construction (the label constant and a z-base-32 key).
        try! DNSName(labels: [CapabilityDescriptor.label, node.z32])
    }
}
