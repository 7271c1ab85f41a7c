import Bitcoin

/// Core's `ScriptToUniv` for an output script: `asm`, `desc` (the inferred descriptor with
/// its checksum), `hex`, `address` (when the script has one) and `type` (Core's `Solver`).
enum ScriptPubKeyJSON {
    static func json(_ script: Script) -> OrderedJSON {
        let kind = ScriptKind(script)
        var object = OrderedJSONObject()
        object.add("asm", .string(ScriptAssembly.assembly(script)))
        object.add("desc", .string(DescriptorChecksum.append(to: descriptor(script, kind: kind)) ?? ""))
        object.add("hex", .string(script.bytes.hex))
        if kind != .pubkey, let address = address(script) { object.add("address", .string(address)) }
        object.add("type", .string(kind.rawValue))
        return object.json
    }

    /// The regtest address of a standard output script (Core's `ExtractDestination`).
    static func address(_ script: Script) -> String? {
        guard let address = try? Address(scriptPubKey: script.bytes) else { return nil }
        return address.encoded(for: .regtest)
    }

    /// Core's `InferDescriptor` with no keys known: `pk()` for bare keys, `multi()` for bare
    /// multisig, `rawtr()` for a taproot output with a valid key, `addr()` for everything
    /// with an address, `raw()` for the rest.
    static func descriptor(_ script: Script, kind: ScriptKind) -> String {
        let bytes = script.bytes
        switch kind {
        case .pubkey:
            return "pk(\(Array(bytes[1..<bytes.count - 1]).hex))"
        case .multisig:
            if let (required, keys) = ScriptKind.multisig(bytes) {
                return "multi(\(required),\(keys.map(\.hex).joined(separator: ",")))"
            }
        case .witnessV1Taproot:
            let key = Array(bytes[2...])
            if (try? XOnlyPublicKey(key)) != nil { return "rawtr(\(key.hex))" }
        default:
            break
        }
        if let address = address(script) { return "addr(\(address))" }
        return "raw(\(bytes.hex))"
    }
}

/// Core's `TxoutType` names, as `Solver` classifies an output script.
enum ScriptKind: String {
    case nonstandard, anchor, pubkey, pubkeyhash, scripthash, multisig, nulldata
    case witnessV0KeyHash = "witness_v0_keyhash"
    case witnessV0ScriptHash = "witness_v0_scripthash"
    case witnessV1Taproot = "witness_v1_taproot"
    case witnessUnknown = "witness_unknown"

    init(_ script: Script) {
        let bytes = script.bytes
        if let address = try? Address(scriptPubKey: bytes) {
            switch address {
            case .p2pkh: self = .pubkeyhash
            case .p2sh: self = .scripthash
            case .p2wpkh: self = .witnessV0KeyHash
            case .p2wsh: self = .witnessV0ScriptHash
            case .p2tr: self = .witnessV1Taproot
            case .witness(let version, let program):
                self = version == 1 && program == [0x4e, 0x73] ? .anchor : .witnessUnknown
            }
            return
        }
        if bytes.first == 0x00 || (0x51...0x60).contains(bytes.first ?? 0), bytes.count >= 4, bytes.count <= 42,
           Int(bytes[1]) == bytes.count - 2 {
            // A v0 program of a length other than 20 or 32 has no meaning: Core calls it nonstandard.
            self = .nonstandard
            return
        }
        if bytes.first == 0x6a, ScriptKind.isPushOnly(Array(bytes.dropFirst())) {
            self = .nulldata
        } else if bytes.count >= 2, bytes.last == 0xac, Int(bytes[0]) == bytes.count - 2,
                  ScriptKind.isValidKeySize(Array(bytes[1..<bytes.count - 1])) {
            self = .pubkey
        } else if ScriptKind.multisig(bytes) != nil {
            self = .multisig
        } else {
            self = .nonstandard
        }
    }

    /// `CPubKey::ValidSize`: the prefix byte fixes the length (33 for 02/03, 65 for 04/06/07).
    static func isValidKeySize(_ key: [UInt8]) -> Bool {
        switch key.first {
        case 0x02?, 0x03?: return key.count == 33
        case 0x04?, 0x06?, 0x07?: return key.count == 65
        default: return false
        }
    }

    /// `OP_m <key>... OP_n OP_CHECKMULTISIG` with 1 <= m <= n <= 16 and valid key sizes.
    static func multisig(_ bytes: [UInt8]) -> (Int, [[UInt8]])? {
        guard bytes.count >= 3, bytes.last == 0xae, (0x51...0x60).contains(bytes[0]),
              (0x51...0x60).contains(bytes[bytes.count - 2]) else { return nil }
        let required = Int(bytes[0]) - 0x50
        let total = Int(bytes[bytes.count - 2]) - 0x50
        var keys: [[UInt8]] = []
        var index = 1
        while index < bytes.count - 2 {
            let length = Int(bytes[index])
            guard length == 33 || length == 65, index + 1 + length <= bytes.count - 2 else { return nil }
            let key = Array(bytes[index + 1..<index + 1 + length])
            guard isValidKeySize(key) else { return nil }
            keys.append(key)
            index += 1 + length
        }
        guard keys.count == total, required <= total else { return nil }
        return (required, keys)
    }

    static func isPushOnly(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let opcode = bytes[index]
            index += 1
            switch opcode {
            case 0x01...0x4b: index += Int(opcode)
            case 0x4c: guard index < bytes.count else { return false }; index += 1 + Int(bytes[index])
            case 0x4d: guard index + 1 < bytes.count else { return false }
                index += 2 + (Int(bytes[index]) | Int(bytes[index + 1]) << 8)
            case 0x4e: guard index + 3 < bytes.count else { return false }
                index += 4 + (0..<4).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
            case 0x00, 0x4f, 0x51...0x60: continue
            default: return false
            }
            if index > bytes.count { return false }
        }
        return true
    }
}
