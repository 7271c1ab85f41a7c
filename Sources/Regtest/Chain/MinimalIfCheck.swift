import Bitcoin

/// Core's MINIMALIF policy for segwit v0 scripts (`SCRIPT_VERIFY_MINIMALIF`, part of
/// `STANDARD_SCRIPT_VERIFY_FLAGS`): the value OP_IF / OP_NOTIF consume must be empty or
/// exactly `0x01`. libbitcoinkernel verifies consensus flags only, and MINIMALIF is policy
/// for v0 (consensus only in tapscript), so without this the hub's mempool would relay what
/// Core refuses with `OP_IF/NOTIF argument must be minimal`.
///
/// Which stack element an OP_IF consumes depends on the run, so the witness script is run
/// here on concrete values. Run only after the kernel found the spend valid, which lets
/// signature checks be modelled without keys: under NULLFAIL (also standard policy) a
/// CHECKSIG that returns false must have had an empty signature, so its result is "the
/// signature is not empty". Opcodes this runner does not model end the run without a
/// verdict (`nil`): the hub then relays as before, never refusing on a guess.
enum MinimalIfCheck {
    /// Core's `ScriptErrorString(SCRIPT_ERR_MINIMALIF)`.
    static let error = "OP_IF/NOTIF argument must be minimal"

    /// Whether running `witnessScript` on `stack` (the witness without the script) hands
    /// OP_IF/OP_NOTIF a non-minimal argument; nil when the run could not be followed.
    static func violates(witnessScript: Script, stack initial: [[UInt8]]) -> Bool? {
        guard let opcodes = try? witnessScript.opcodes() else { return nil }
        var run = Run(stack: initial)
        for opcode in opcodes {
            switch run.step(opcode) {
            case .next: continue
            case .violation: return true
            case .unknown: return nil
            }
        }
        return false
    }

    private enum Outcome { case next, violation, unknown }

    private struct Run {
        var stack: [[UInt8]]
        var altStack: [[UInt8]] = []
        /// Core's `vfExec`: one entry per open IF, whether its branch runs.
        var branches: [Bool] = []

        init(stack: [[UInt8]]) { self.stack = stack }

        mutating func step(_ opcode: Opcode) -> Outcome {
            let executing = !branches.contains(false)
            switch opcode {
            case .if, .notIf:
                guard executing else { branches.append(false); return .next }
                guard let top = stack.popLast() else { return .unknown }
                guard top.isEmpty || top == [1] else { return .violation }
                branches.append((top == [1]) != (opcode == .notIf))
                return .next
            case .else:
                guard let last = branches.popLast() else { return .unknown }
                branches.append(!last)
                return .next
            case .endIf:
                return branches.popLast() == nil ? .unknown : .next
            default:
                guard executing else { return .next }
                return execute(opcode) ? .next : .unknown
            }
        }

        /// Runs one executed non-branch opcode; false when it is not modelled or the run
        /// cannot be what a valid spend did (an empty stack, a failed VERIFY).
        mutating func execute(_ opcode: Opcode) -> Bool {
            if let data = opcode.pushedData { stack.append(data); return true }
            switch opcode {
            case .nop, .checkLockTimeVerify, .checkSequenceVerify: break // judged by the kernel
            case .verify: guard let top = stack.popLast(), Self.isTrue(top) else { return false }
            case .toAltStack: guard let top = stack.popLast() else { return false }; altStack.append(top)
            case .fromAltStack: guard let top = altStack.popLast() else { return false }; stack.append(top)
            case .drop: return pop(1) != nil
            case .twoDrop: return pop(2) != nil
            case .dup: return copy(depths: [1])
            case .twoDup: return copy(depths: [2, 2])
            case .threeDup: return copy(depths: [3, 3, 3])
            case .over: return copy(depths: [2])
            case .twoOver: return copy(depths: [4, 4])
            case .ifDup:
                guard let top = stack.last else { return false }
                if Self.isTrue(top) { stack.append(top) }
            case .depth: stack.append(ScriptNumber(Int64(stack.count)).bytes)
            case .nip: guard stack.count >= 2 else { return false }; stack.remove(at: stack.count - 2)
            case .swap: guard stack.count >= 2 else { return false }; stack.swapAt(stack.count - 1, stack.count - 2)
            case .tuck:
                guard stack.count >= 2 else { return false }
                stack.insert(stack[stack.count - 1], at: stack.count - 2)
            case .rot:
                guard stack.count >= 3 else { return false }
                stack.append(stack.remove(at: stack.count - 3))
            case .pick, .roll:
                guard let n = pop(1).flatMap({ Self.number($0[0]) }), n >= 0, n < stack.count else { return false }
                let index = stack.count - 1 - Int(n)
                stack.append(opcode == .roll ? stack.remove(at: index) : stack[index])
            case .size:
                guard let top = stack.last else { return false }
                stack.append(ScriptNumber(Int64(top.count)).bytes)
            case .equal, .equalVerify:
                guard let pair = pop(2) else { return false }
                let equal = pair[0] == pair[1]
                if opcode == .equalVerify { return equal }
                stack.append(equal ? [1] : [])
            case .sha256: return hash { SHA256.hash($0) }
            case .hash160: return hash { Hash160.hash($0) }
            case .ripemd160: return hash { RIPEMD160.hash($0) }
            case .hash256: return hash { SHA256.hash(SHA256.hash($0)) }
            case .checkSig, .checkSigVerify:
                // NULLFAIL: a signature that does not verify must be empty.
                guard let pair = pop(2) else { return false }
                if opcode == .checkSigVerify { return !pair[0].isEmpty }
                stack.append(pair[0].isEmpty ? [] : [1])
            default:
                return arithmetic(opcode)
            }
            return true
        }

        private mutating func arithmetic(_ opcode: Opcode) -> Bool {
            let unary: [Opcode: (Int64) -> Int64] = [
                .oneAdd: { $0 + 1 }, .oneSub: { $0 - 1 }, .negate: { -$0 }, .abs: { Swift.abs($0) },
                .not: { $0 == 0 ? 1 : 0 }, .zeroNotEqual: { $0 != 0 ? 1 : 0 },
            ]
            let binary: [Opcode: (Int64, Int64) -> Int64] = [
                .add: { $0 + $1 }, .sub: { $0 - $1 }, .boolAnd: { $0 != 0 && $1 != 0 ? 1 : 0 },
                .boolOr: { $0 != 0 || $1 != 0 ? 1 : 0 }, .numEqual: { $0 == $1 ? 1 : 0 },
                .numEqualVerify: { $0 == $1 ? 1 : 0 }, .numNotEqual: { $0 != $1 ? 1 : 0 },
                .lessThan: { $0 < $1 ? 1 : 0 }, .greaterThan: { $0 > $1 ? 1 : 0 },
                .lessThanOrEqual: { $0 <= $1 ? 1 : 0 }, .greaterThanOrEqual: { $0 >= $1 ? 1 : 0 },
                .min: { Swift.min($0, $1) }, .max: { Swift.max($0, $1) },
            ]
            if let function = unary[opcode] {
                guard let value = pop(1).flatMap({ Self.number($0[0]) }) else { return false }
                stack.append(ScriptNumber(function(value)).bytes)
                return true
            }
            if let function = binary[opcode] {
                guard let pair = pop(2), let a = Self.number(pair[0]), let b = Self.number(pair[1]) else {
                    return false
                }
                let result = function(a, b)
                if opcode == .numEqualVerify { return result != 0 }
                stack.append(ScriptNumber(result).bytes)
                return true
            }
            if opcode == .within {
                guard let three = pop(3), let x = Self.number(three[0]), let low = Self.number(three[1]),
                      let high = Self.number(three[2]) else { return false }
                stack.append(low <= x && x < high ? [1] : [])
                return true
            }
            return false
        }

        /// A script number as arithmetic reads it (4 bytes at most, minimally encoded).
        private static func number(_ bytes: [UInt8]) -> Int64? { (try? ScriptNumber(bytes: bytes))?.value }

        /// Core's `CastToBool` (`ScriptBool`, shared with the provider's claim reading).
        private static func isTrue(_ bytes: [UInt8]) -> Bool { ScriptBool.isTrue(bytes) }

        /// Removes the top `count` elements, returned bottom first.
        private mutating func pop(_ count: Int) -> [[UInt8]]? {
            guard stack.count >= count else { return nil }
            defer { stack.removeLast(count) }
            return Array(stack.suffix(count))
        }

        /// Pushes copies of the elements at the given depths (1 = top), read as each push lands.
        private mutating func copy(depths: [Int]) -> Bool {
            for depth in depths {
                guard stack.count >= depth else { return false }
                stack.append(stack[stack.count - depth])
            }
            return true
        }

        private mutating func hash(_ function: ([UInt8]) -> [UInt8]) -> Bool {
            guard let top = stack.popLast() else { return false }
            stack.append(function(top))
            return true
        }
    }
}
