/// Where an output pays: one of the standard scriptPubKey templates, without the
/// network (an address string adds that). Payload lengths are fixed by the kind:
/// 20-byte hashes for P2PKH, P2SH and P2WPKH, a 32-byte script hash for P2WSH, a
/// 32-byte x-only output key for P2TR, and 2...40 bytes for other witness programs.
///
/// Values made by the parsing initializers always hold valid payloads. Values built
/// from their cases directly must too: `scriptPubKey` and `encoded(for:)` stop the
/// program on a wrong length rather than pay to a malformed script. Call
/// `validate()` first when the bytes came from outside.
public enum Address: Sendable, Hashable {
    /// `OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG`
    case p2pkh(pubkeyHash: [UInt8])
    /// `OP_HASH160 <20> OP_EQUAL`
    case p2sh(scriptHash: [UInt8])
    /// `OP_0 <20>`
    case p2wpkh(pubkeyHash: [UInt8])
    /// `OP_0 <32>`: the SHA-256 of the witness script.
    case p2wsh(scriptHash: [UInt8])
    /// `OP_1 <32>`: the BIP341 output key.
    case p2tr(outputKey: [UInt8])
    /// `OP_n <2...40>` for every other valid (version, length) pair: v1 with a
    /// program other than 32 bytes, and v2...v16. Never v0, never v1 with 32 bytes.
    case witness(version: UInt8, program: [UInt8])

    /// Longer than any address (bech32 ≤ 90, base58 ≤ 35): refused before decoding,
    /// whose cost grows with the square of the length for base58.
    static let maxStringLength = 100

    // MARK: strings

    /// Parses an address for `network`. Accepts every address whose encoding
    /// `network` shares (a `tb1` address is accepted for testnet and for signet,
    /// a base58 `m...` address for testnet, signet and regtest); rejects, with the
    /// networks it is for, an address of any other network.
    public init(_ string: some StringProtocol, network: Network) throws {
        let (address, networks) = try Address.decodeAnyNetwork(string)
        guard networks.contains(network) else {
            throw BitcoinError.invalidAddress("address is for \(Network.describe(networks)), this node runs on \(network.rawValue)")
        }
        self = address
    }

    /// Parses an address of any network, returning every network whose encoding it
    /// matches (several when they share one, see `Network.encodingSiblings`).
    public static func decodeAnyNetwork(_ string: some StringProtocol) throws -> (address: Address, networks: Set<Network>) {
        guard string.utf8.count <= maxStringLength else {
            throw BitcoinError.invalidAddress("\(string.utf8.count) characters is too long for an address")
        }
        guard !string.isEmpty else {
            throw BitcoinError.invalidAddress("address is empty")
        }
        let bytes = Array(string.utf8)
        if let separator = bytes.lastIndex(of: Bech32.separator) {
            let hrp = String(decoding: bytes[..<separator], as: UTF8.self).lowercased()
            let networks = Network.networks(bech32HRP: hrp)
            if !networks.isEmpty {
                let segwit = try SegwitAddress(string)
                return (try Address(witnessVersion: segwit.version, program: segwit.program), networks)
            }
        }
        let payload: [UInt8]
        do {
            payload = try Base58Check.decode(string)
        } catch {
            // Name the real problem when it is a well-formed segwit address of some other chain.
            if (try? Bech32.decode(string)) != nil {
                throw BitcoinError.invalidAddress("segwit address prefix is not bc, tb or bcrt: it is for no Bitcoin network")
            }
            throw error
        }
        return try decodeBase58(payload: payload)
    }

    /// The address string for `network`: base58 for P2PKH and P2SH, lowercase
    /// bech32 (v0) or bech32m (v1+) for witness outputs.
    public func encoded(for network: Network) -> String {
        requireValid()
        switch self {
        case .p2pkh(let hash):
            return Base58Check.encode([network.p2pkhVersion] + hash)
        case .p2sh(let hash):
            return Base58Check.encode([network.p2shVersion] + hash)
        case .p2wpkh, .p2wsh, .p2tr, .witness:
            let (version, program) = witnessParts!
            // Cannot throw: requireValid checked version and program, and the HRP is a constant.
            return (try! SegwitAddress(hrp: network.bech32HRP, version: version, program: program)).encoded
        }
    }

    private static func decodeBase58(payload: [UInt8]) throws -> (address: Address, networks: Set<Network>) {
        guard let version = payload.first, payload.count == 21 else {
            throw BitcoinError.invalidAddress("base58 address holds \(max(payload.count - 1, 0)) bytes, not a 20-byte hash")
        }
        let hash = Array(payload.dropFirst())
        let p2pkh = Set(Network.allCases.filter { $0.p2pkhVersion == version })
        if !p2pkh.isEmpty { return (.p2pkh(pubkeyHash: hash), p2pkh) }
        let p2sh = Set(Network.allCases.filter { $0.p2shVersion == version })
        if !p2sh.isEmpty { return (.p2sh(scriptHash: hash), p2sh) }
        throw BitcoinError.invalidAddress("base58 version byte \(version) is not a P2PKH or P2SH address of any network")
    }

    // MARK: scripts

    /// Makes the canonical case for a witness output: P2WPKH, P2WSH and P2TR for
    /// their (version, length) pairs, `.witness` otherwise.
    public init(witnessVersion version: UInt8, program: [UInt8]) throws {
        try SegwitAddress.check(version: version, program: program)
        switch (version, program.count) {
        case (0, 20): self = .p2wpkh(pubkeyHash: program)
        case (0, 32): self = .p2wsh(scriptHash: program)
        case (1, 32): self = .p2tr(outputKey: program)
        default: self = .witness(version: version, program: program)
        }
    }

    /// Recognises exactly the standard templates: P2PKH `76 a9 14 <20> 88 ac`, P2SH
    /// `a9 14 <20> 87`, and witness `OP_n <push of 2...40>` with OP_0 or OP_1...OP_16.
    /// Anything else (bare multisig, OP_RETURN, non-minimal pushes) has no address.
    public init(scriptPubKey script: [UInt8]) throws {
        if script.count == 25, script[0] == 0x76, script[1] == 0xa9, script[2] == 20,
           script[23] == 0x88, script[24] == 0xac {
            self = .p2pkh(pubkeyHash: Array(script[3..<23]))
            return
        }
        if script.count == 23, script[0] == 0xa9, script[1] == 20, script[22] == 0x87 {
            self = .p2sh(scriptHash: Array(script[2..<22]))
            return
        }
        if script.count >= 4, script.count <= 42, Int(script[1]) == script.count - 2 {
            let version: UInt8?
            switch script[0] {
            case 0x00: version = 0
            case 0x51...0x60: version = script[0] - 0x50
            default: version = nil
            }
            if let version, let witness = try? Address(witnessVersion: version, program: Array(script[2...])) {
                self = witness
                return
            }
        }
        throw BitcoinError.invalidAddress("output script is not a standard P2PKH, P2SH or witness template, so it has no address")
    }

    /// The output script paying this address.
    public var scriptPubKey: [UInt8] {
        requireValid()
        switch self {
        case .p2pkh(let hash):
            return [0x76, 0xa9, 20] + hash + [0x88, 0xac]
        case .p2sh(let hash):
            return [0xa9, 20] + hash + [0x87]
        case .p2wpkh, .p2wsh, .p2tr, .witness:
            let (version, program) = witnessParts!
            return [version == 0 ? 0x00 : 0x50 + version, UInt8(program.count)] + program
        }
    }

    /// Witness version and program, nil for P2PKH and P2SH.
    public var witnessParts: (version: UInt8, program: [UInt8])? {
        switch self {
        case .p2pkh, .p2sh: return nil
        case .p2wpkh(let hash): return (0, hash)
        case .p2wsh(let hash): return (0, hash)
        case .p2tr(let key): return (1, key)
        case .witness(let version, let program): return (version, program)
        }
    }

    // MARK: validity

    /// Checks the payload length of the case, and that a witness output uses its
    /// canonical case (so equal outputs compare equal).
    public func validate() throws {
        switch self {
        case .p2pkh(let hash), .p2sh(let hash):
            guard hash.count == 20 else {
                throw BitcoinError.invalidAddress("hash is \(hash.count) bytes, not 20")
            }
        case .p2wpkh, .p2wsh, .p2tr, .witness:
            let (version, program) = witnessParts!
            guard try Address(witnessVersion: version, program: program) == self else {
                throw BitcoinError.invalidAddress("witness v\(version) program of \(program.count) bytes has its own address kind; use Address(witnessVersion:program:)")
            }
        }
    }

    private func requireValid() {
        do {
            try validate()
        } catch {
            preconditionFailure("malformed Address: \(error)")
        }
    }
}
