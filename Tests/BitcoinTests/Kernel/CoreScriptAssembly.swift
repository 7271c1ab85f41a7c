@testable import Bitcoin

/// Bitcoin Core's test-script assembly (`ParseScript` in src/core_read.cpp), parsed the way Core
/// parses it so that the bytes handed to the kernel are the bytes Core's own tests use.
/// This is a test format, not Core's display format: hex after `0x` is inserted raw, not pushed.
enum CoreScriptAssembly {
    struct ParseError: Error, CustomStringConvertible {
        let word: String
        let reason: String
        var description: String { "script parse error at '\(word)': \(reason)" }
    }

    /// ParseOpCode's table: opcodes OP_NOP...OP_NOP10 plus OP_RESERVED, each under Core's
    /// `GetOpName` and that name without "OP_". Pushes, OP_N, OP_1NEGATE, aliases such as NOP2
    /// and opcodes past OP_NOP10 (OP_CHECKSIGADD) are not in Core's table, so they are filtered
    /// out of `Opcode.operationsByName` here.
    static let opcodesByName: [String: Opcode] = Opcode.operationsByName.filter { name, op in
        let inCoreTable = op.byte == 0x50 || (0x61...0xb9).contains(op.byte)
        return inCoreTable && (op.name == name || op.name == "OP_" + name)
    }

    static func parse(_ text: String) throws -> Script {
        var bytes: [UInt8] = []
        // Core splits on exactly these three bytes (no other whitespace) and skips empty words.
        let separators: Set<UInt8> = [0x20, 0x09, 0x0a]
        for wordBytes in Array(text.utf8).split(whereSeparator: separators.contains) {
            let word = String(decoding: wordBytes, as: UTF8.self)
            if let number = try decimal(wordBytes, word) {
                bytes += Script([.pushNumber(number)]).bytes
            } else if wordBytes.starts(with: Array("0x".utf8)), wordBytes.count > 2 {
                guard let raw = [UInt8](hex: word.dropFirst(2)) else {
                    throw ParseError(word: word, reason: "not an even number of hex digits")
                }
                bytes += raw
            } else if wordBytes.count >= 2, wordBytes.first == UInt8(ascii: "'"), wordBytes.last == UInt8(ascii: "'") {
                // `CScript << vector`: the shortest push, never OP_N.
                bytes += Script([.pushData(Array(wordBytes.dropFirst().dropLast()))]).bytes
            } else if let op = opcodesByName[word] {
                bytes += Script([op]).bytes
            } else {
                throw ParseError(word: word, reason: "unknown opcode")
            }
        }
        return Script(bytes: bytes)
    }

    /// A decimal word (digits, or '-' and digits) as `CScript << int64` takes it; nil when the
    /// word is not decimal. Core accepts only -0xffffffff...0xffffffff.
    private static func decimal(_ wordBytes: ArraySlice<UInt8>, _ word: String) throws -> Int64? {
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let digits = wordBytes.first == UInt8(ascii: "-") ? wordBytes.dropFirst() : wordBytes
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        guard let value = Int64(word), (-0xffff_ffff...0xffff_ffff).contains(value) else {
            throw ParseError(word: word, reason: "decimal numeric value only allowed in the range -0xFFFFFFFF...0xFFFFFFFF")
        }
        return value
    }
}
