import Bitcoin

/// Core's `IsWitnessStandard` (policy/policy.cpp): witness shapes that are valid by
/// consensus but not relayed, refused as `bad-witness-nonstandard`. The kernel judges
/// consensus only, so without these the hub would relay, say, a Taproot annex that no Core
/// node relays, and a test relying on it would pass here and fail on a real network.
enum WitnessStandardness {
    static let reason = "bad-witness-nonstandard"

    /// Core's `MAX_STANDARD_P2WSH_SCRIPT_SIZE`, `_STACK_ITEMS`, `_STACK_ITEM_SIZE`.
    static let maxP2WSHScriptSize = 3_600
    static let maxP2WSHStackItems = 100
    static let maxP2WSHStackItemSize = 80
    /// Core's `MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE`.
    static let maxTapscriptStackItemSize = 80
    /// BIP341: a last witness element starting with this byte is the annex.
    static let annexTag: UInt8 = 0x50
    /// BIP342's leaf version (the control block's first byte, parity bit masked off).
    static let tapscriptLeafVersion: UInt8 = 0xc0

    /// Whether every input's witness is standard for the output it spends (`spentOutputs`
    /// in input order).
    static func isStandard(_ transaction: Transaction, spentOutputs: [TransactionOutput]) -> Bool {
        for (index, input) in transaction.inputs.enumerated() where !input.witness.stack.isEmpty {
            guard isStandard(input, spending: spentOutputs[index].scriptPubKey) else { return false }
        }
        return true
    }

    private static func isStandard(_ input: TransactionInput, spending scriptPubKey: Script) -> Bool {
        var program = scriptPubKey.bytes
        // Pay-to-anchor is keyless: a witness on it is stuffing.
        if program == [0x51, 0x02, 0x4e, 0x73] { return false }
        let wrapped = isP2SH(program)
        if wrapped {
            // The redeem script is the scriptSig's last push (push-only is checked earlier).
            guard let last = (try? input.scriptSig.opcodes())?.last?.pushedData else { return false }
            program = last
        }
        // A witness on anything but a witness program is not standard.
        guard OutputPolicy.isWitnessProgram(Script(bytes: program)) else { return false }
        let version = program[0] == 0x00 ? 0 : Int(program[0]) - 0x50
        let stack = input.witness.stack
        if version == 0 && program.count == 34 {
            let items = stack.dropLast()
            guard stack.last!.count <= maxP2WSHScriptSize, items.count <= maxP2WSHStackItems,
                  items.allSatisfy({ $0.count <= maxP2WSHStackItemSize }) else { return false }
        }
        if version == 1 && program.count == 34 && !wrapped {
            // Annexes are non-standard while no meaning is defined for them.
            if stack.count >= 2, stack.last!.first == annexTag { return false }
            if stack.count >= 2 {
                let controlBlock = stack[stack.count - 1]
                guard let leaf = controlBlock.first else { return false }
                if leaf & 0xfe == tapscriptLeafVersion {
                    guard stack.dropLast(2).allSatisfy({ $0.count <= maxTapscriptStackItemSize }) else { return false }
                }
            }
        }
        return true
    }

    private static func isP2SH(_ script: [UInt8]) -> Bool {
        script.count == 23 && script[0] == 0xa9 && script[1] == 0x14 && script[22] == 0x87
    }
}
