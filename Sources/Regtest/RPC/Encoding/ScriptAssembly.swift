import Bitcoin

/// Core's `ScriptToAsmStr`: pushes of up to 4 bytes as numbers (CScriptNum), longer ones
/// as hex, other opcodes by name, `[error]` where the script stops parsing. With
/// `decodeSighash`, a push that is a strictly DER-encoded signature with a defined sighash
/// type is shown as `<hex>[ALL]` (Core does so for scriptSigs).
enum ScriptAssembly {
    static func assembly(_ script: Script, decodeSighash: Bool = false) -> String {
        let bytes = script.bytes
        let unspendable = bytes.first == 0x6a || bytes.count > 10_000
        var parts: [String] = []
        var index = 0
        while index < bytes.count {
            let opcode = bytes[index]
            index += 1
            guard opcode <= 0x4e else {
                parts.append(name(of: opcode))
                continue
            }
            let length: Int
            switch opcode {
            case 0x4c, 0x4d, 0x4e:
                let width = opcode == 0x4c ? 1 : opcode == 0x4d ? 2 : 4
                guard index + width <= bytes.count else { return (parts + ["[error]"]).joined(separator: " ") }
                length = (0..<width).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
                index += width
            default:
                length = Int(opcode)
            }
            guard length <= bytes.count - index else { return (parts + ["[error]"]).joined(separator: " ") }
            var data = Array(bytes[index..<index + length])
            index += length
            if data.count <= 4 {
                parts.append(String(scriptNumber(data)))
            } else if decodeSighash && !unspendable && isStrictSignature(data),
                      let type = sighashNames[data.last!] {
                data.removeLast()
                parts.append(data.hex + "[\(type)]")
            } else {
                parts.append(data.hex)
            }
        }
        return parts.joined(separator: " ")
    }

    /// The name Core prints for a non-push opcode (`1` for OP_1, `OP_CHECKSIG`, ...).
    private static func name(of opcode: UInt8) -> String {
        guard let op = try? Script(bytes: [opcode]).opcodes().first else { return "OP_UNKNOWN" }
        switch op {
        case .number(let n): return "\(n)"
        case .oneNegate: return "-1"
        default: return op.name
        }
    }

    /// CScriptNum without the minimality rule: little-endian magnitude, sign in the top bit.
    static func scriptNumber(_ data: [UInt8]) -> Int64 {
        guard let last = data.last else { return 0 }
        var value: Int64 = 0
        for (index, byte) in data.enumerated() { value |= Int64(byte) << (8 * Int64(index)) }
        if last & 0x80 != 0 {
            value &= ~(Int64(0x80) << (8 * Int64(data.count - 1)))
            return -value
        }
        return value
    }

    private static let sighashNames: [UInt8: String] = [
        0x01: "ALL", 0x02: "NONE", 0x03: "SINGLE",
        0x81: "ALL|ANYONECANPAY", 0x82: "NONE|ANYONECANPAY", 0x83: "SINGLE|ANYONECANPAY",
    ]

    /// Core's `IsValidSignatureEncoding` (BIP66 strict DER) plus a defined hash type byte,
    /// i.e. `CheckSignatureEncoding` with STRICTENC.
    static func isStrictSignature(_ sig: [UInt8]) -> Bool {
        guard sig.count >= 9, sig.count <= 73, sig[0] == 0x30, Int(sig[1]) == sig.count - 3 else { return false }
        let lenR = Int(sig[3])
        guard 5 + lenR < sig.count else { return false }
        let lenS = Int(sig[5 + lenR])
        guard lenR + lenS + 7 == sig.count, sig[2] == 0x02, lenR != 0, sig[4] & 0x80 == 0 else { return false }
        if lenR > 1 && sig[4] == 0 && sig[5] & 0x80 == 0 { return false }
        guard sig[lenR + 4] == 0x02, lenS != 0, sig[lenR + 6] & 0x80 == 0 else { return false }
        if lenS > 1 && sig[lenR + 6] == 0 && sig[lenR + 7] & 0x80 == 0 { return false }
        let hashType = sig[sig.count - 1] & ~0x80
        return hashType >= 1 && hashType <= 3
    }
}
