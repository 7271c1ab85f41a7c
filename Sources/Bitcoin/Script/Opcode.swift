// Opcode table for Script: one case per opcode, pushes carrying their data, so a script
// written in code reads like its assembly. Names follow Bitcoin Core's GetOpName.

/// One script element: a data push (with its bytes) or an operation.
public enum Opcode: Hashable, Sendable {
    /// OP_0 / OP_FALSE: pushes the empty byte string.
    case zero
    /// A direct push of 1...75 bytes (opcode = length).
    case push([UInt8])
    /// OP_PUSHDATA1/2/4: a push whose length follows in 1, 2 or 4 bytes.
    case pushData1([UInt8])
    case pushData2([UInt8])
    case pushData4([UInt8])
    /// OP_1 ... OP_16 (the value, 1...16).
    case number(UInt8)
    case oneNegate // 0x4f OP_1NEGATE
    case reserved // 0x50 OP_RESERVED
    case nop // 0x61 OP_NOP
    case ver // 0x62 OP_VER
    case `if` // 0x63 OP_IF
    case notIf // 0x64 OP_NOTIF
    case verIf // 0x65 OP_VERIF
    case verNotIf // 0x66 OP_VERNOTIF
    case `else` // 0x67 OP_ELSE
    case endIf // 0x68 OP_ENDIF
    case verify // 0x69 OP_VERIFY
    case `return` // 0x6a OP_RETURN
    case toAltStack // 0x6b OP_TOALTSTACK
    case fromAltStack // 0x6c OP_FROMALTSTACK
    case twoDrop // 0x6d OP_2DROP
    case twoDup // 0x6e OP_2DUP
    case threeDup // 0x6f OP_3DUP
    case twoOver // 0x70 OP_2OVER
    case twoRot // 0x71 OP_2ROT
    case twoSwap // 0x72 OP_2SWAP
    case ifDup // 0x73 OP_IFDUP
    case depth // 0x74 OP_DEPTH
    case drop // 0x75 OP_DROP
    case dup // 0x76 OP_DUP
    case nip // 0x77 OP_NIP
    case over // 0x78 OP_OVER
    case pick // 0x79 OP_PICK
    case roll // 0x7a OP_ROLL
    case rot // 0x7b OP_ROT
    case swap // 0x7c OP_SWAP
    case tuck // 0x7d OP_TUCK
    case cat // 0x7e OP_CAT
    case substr // 0x7f OP_SUBSTR
    case left // 0x80 OP_LEFT
    case right // 0x81 OP_RIGHT
    case size // 0x82 OP_SIZE
    case invert // 0x83 OP_INVERT
    case and // 0x84 OP_AND
    case or // 0x85 OP_OR
    case xor // 0x86 OP_XOR
    case equal // 0x87 OP_EQUAL
    case equalVerify // 0x88 OP_EQUALVERIFY
    case reserved1 // 0x89 OP_RESERVED1
    case reserved2 // 0x8a OP_RESERVED2
    case oneAdd // 0x8b OP_1ADD
    case oneSub // 0x8c OP_1SUB
    case twoMul // 0x8d OP_2MUL
    case twoDiv // 0x8e OP_2DIV
    case negate // 0x8f OP_NEGATE
    case abs // 0x90 OP_ABS
    case not // 0x91 OP_NOT
    case zeroNotEqual // 0x92 OP_0NOTEQUAL
    case add // 0x93 OP_ADD
    case sub // 0x94 OP_SUB
    case mul // 0x95 OP_MUL
    case div // 0x96 OP_DIV
    case mod // 0x97 OP_MOD
    case lShift // 0x98 OP_LSHIFT
    case rShift // 0x99 OP_RSHIFT
    case boolAnd // 0x9a OP_BOOLAND
    case boolOr // 0x9b OP_BOOLOR
    case numEqual // 0x9c OP_NUMEQUAL
    case numEqualVerify // 0x9d OP_NUMEQUALVERIFY
    case numNotEqual // 0x9e OP_NUMNOTEQUAL
    case lessThan // 0x9f OP_LESSTHAN
    case greaterThan // 0xa0 OP_GREATERTHAN
    case lessThanOrEqual // 0xa1 OP_LESSTHANOREQUAL
    case greaterThanOrEqual // 0xa2 OP_GREATERTHANOREQUAL
    case min // 0xa3 OP_MIN
    case max // 0xa4 OP_MAX
    case within // 0xa5 OP_WITHIN
    case ripemd160 // 0xa6 OP_RIPEMD160
    case sha1 // 0xa7 OP_SHA1
    case sha256 // 0xa8 OP_SHA256
    case hash160 // 0xa9 OP_HASH160
    case hash256 // 0xaa OP_HASH256
    case codeSeparator // 0xab OP_CODESEPARATOR
    case checkSig // 0xac OP_CHECKSIG
    case checkSigVerify // 0xad OP_CHECKSIGVERIFY
    case checkMultiSig // 0xae OP_CHECKMULTISIG
    case checkMultiSigVerify // 0xaf OP_CHECKMULTISIGVERIFY
    case nop1 // 0xb0 OP_NOP1
    case checkLockTimeVerify // 0xb1 OP_CHECKLOCKTIMEVERIFY
    case checkSequenceVerify // 0xb2 OP_CHECKSEQUENCEVERIFY
    case nop4 // 0xb3 OP_NOP4
    case nop5 // 0xb4 OP_NOP5
    case nop6 // 0xb5 OP_NOP6
    case nop7 // 0xb6 OP_NOP7
    case nop8 // 0xb7 OP_NOP8
    case nop9 // 0xb8 OP_NOP9
    case nop10 // 0xb9 OP_NOP10
    case checkSigAdd // 0xba OP_CHECKSIGADD
    case invalidOpcode // 0xff OP_INVALIDOPCODE
    /// Any byte with no assigned opcode (0xbb...0xfe).
    case unknown(UInt8)
}

extension Opcode {
    /// The opcode byte (for pushes, the byte that introduces the data).
    public var byte: UInt8 {
        switch self {
        case .zero: return 0x00
        case .push(let data): return UInt8(data.count)
        case .pushData1: return 0x4c
        case .pushData2: return 0x4d
        case .pushData4: return 0x4e
        case .number(let n): return 0x50 + n
        case .unknown(let b): return b
        case .oneNegate: return 0x4f
        case .reserved: return 0x50
        case .nop: return 0x61
        case .ver: return 0x62
        case .`if`: return 0x63
        case .notIf: return 0x64
        case .verIf: return 0x65
        case .verNotIf: return 0x66
        case .`else`: return 0x67
        case .endIf: return 0x68
        case .verify: return 0x69
        case .`return`: return 0x6a
        case .toAltStack: return 0x6b
        case .fromAltStack: return 0x6c
        case .twoDrop: return 0x6d
        case .twoDup: return 0x6e
        case .threeDup: return 0x6f
        case .twoOver: return 0x70
        case .twoRot: return 0x71
        case .twoSwap: return 0x72
        case .ifDup: return 0x73
        case .depth: return 0x74
        case .drop: return 0x75
        case .dup: return 0x76
        case .nip: return 0x77
        case .over: return 0x78
        case .pick: return 0x79
        case .roll: return 0x7a
        case .rot: return 0x7b
        case .swap: return 0x7c
        case .tuck: return 0x7d
        case .cat: return 0x7e
        case .substr: return 0x7f
        case .left: return 0x80
        case .right: return 0x81
        case .size: return 0x82
        case .invert: return 0x83
        case .and: return 0x84
        case .or: return 0x85
        case .xor: return 0x86
        case .equal: return 0x87
        case .equalVerify: return 0x88
        case .reserved1: return 0x89
        case .reserved2: return 0x8a
        case .oneAdd: return 0x8b
        case .oneSub: return 0x8c
        case .twoMul: return 0x8d
        case .twoDiv: return 0x8e
        case .negate: return 0x8f
        case .abs: return 0x90
        case .not: return 0x91
        case .zeroNotEqual: return 0x92
        case .add: return 0x93
        case .sub: return 0x94
        case .mul: return 0x95
        case .div: return 0x96
        case .mod: return 0x97
        case .lShift: return 0x98
        case .rShift: return 0x99
        case .boolAnd: return 0x9a
        case .boolOr: return 0x9b
        case .numEqual: return 0x9c
        case .numEqualVerify: return 0x9d
        case .numNotEqual: return 0x9e
        case .lessThan: return 0x9f
        case .greaterThan: return 0xa0
        case .lessThanOrEqual: return 0xa1
        case .greaterThanOrEqual: return 0xa2
        case .min: return 0xa3
        case .max: return 0xa4
        case .within: return 0xa5
        case .ripemd160: return 0xa6
        case .sha1: return 0xa7
        case .sha256: return 0xa8
        case .hash160: return 0xa9
        case .hash256: return 0xaa
        case .codeSeparator: return 0xab
        case .checkSig: return 0xac
        case .checkSigVerify: return 0xad
        case .checkMultiSig: return 0xae
        case .checkMultiSigVerify: return 0xaf
        case .nop1: return 0xb0
        case .checkLockTimeVerify: return 0xb1
        case .checkSequenceVerify: return 0xb2
        case .nop4: return 0xb3
        case .nop5: return 0xb4
        case .nop6: return 0xb5
        case .nop7: return 0xb6
        case .nop8: return 0xb7
        case .nop9: return 0xb8
        case .nop10: return 0xb9
        case .checkSigAdd: return 0xba
        case .invalidOpcode: return 0xff
        }
    }

    /// The operation for a non-push opcode byte; nil for push bytes (0x00...0x4e) and OP_1...OP_16,
    /// which `Script` decodes itself because they need their data or value.
    static func operation(byte: UInt8) -> Opcode? {
        switch byte {
        case 0x4f: return .oneNegate
        case 0x50: return .reserved
        case 0x61: return .nop
        case 0x62: return .ver
        case 0x63: return .`if`
        case 0x64: return .notIf
        case 0x65: return .verIf
        case 0x66: return .verNotIf
        case 0x67: return .`else`
        case 0x68: return .endIf
        case 0x69: return .verify
        case 0x6a: return .`return`
        case 0x6b: return .toAltStack
        case 0x6c: return .fromAltStack
        case 0x6d: return .twoDrop
        case 0x6e: return .twoDup
        case 0x6f: return .threeDup
        case 0x70: return .twoOver
        case 0x71: return .twoRot
        case 0x72: return .twoSwap
        case 0x73: return .ifDup
        case 0x74: return .depth
        case 0x75: return .drop
        case 0x76: return .dup
        case 0x77: return .nip
        case 0x78: return .over
        case 0x79: return .pick
        case 0x7a: return .roll
        case 0x7b: return .rot
        case 0x7c: return .swap
        case 0x7d: return .tuck
        case 0x7e: return .cat
        case 0x7f: return .substr
        case 0x80: return .left
        case 0x81: return .right
        case 0x82: return .size
        case 0x83: return .invert
        case 0x84: return .and
        case 0x85: return .or
        case 0x86: return .xor
        case 0x87: return .equal
        case 0x88: return .equalVerify
        case 0x89: return .reserved1
        case 0x8a: return .reserved2
        case 0x8b: return .oneAdd
        case 0x8c: return .oneSub
        case 0x8d: return .twoMul
        case 0x8e: return .twoDiv
        case 0x8f: return .negate
        case 0x90: return .abs
        case 0x91: return .not
        case 0x92: return .zeroNotEqual
        case 0x93: return .add
        case 0x94: return .sub
        case 0x95: return .mul
        case 0x96: return .div
        case 0x97: return .mod
        case 0x98: return .lShift
        case 0x99: return .rShift
        case 0x9a: return .boolAnd
        case 0x9b: return .boolOr
        case 0x9c: return .numEqual
        case 0x9d: return .numEqualVerify
        case 0x9e: return .numNotEqual
        case 0x9f: return .lessThan
        case 0xa0: return .greaterThan
        case 0xa1: return .lessThanOrEqual
        case 0xa2: return .greaterThanOrEqual
        case 0xa3: return .min
        case 0xa4: return .max
        case 0xa5: return .within
        case 0xa6: return .ripemd160
        case 0xa7: return .sha1
        case 0xa8: return .sha256
        case 0xa9: return .hash160
        case 0xaa: return .hash256
        case 0xab: return .codeSeparator
        case 0xac: return .checkSig
        case 0xad: return .checkSigVerify
        case 0xae: return .checkMultiSig
        case 0xaf: return .checkMultiSigVerify
        case 0xb0: return .nop1
        case 0xb1: return .checkLockTimeVerify
        case 0xb2: return .checkSequenceVerify
        case 0xb3: return .nop4
        case 0xb4: return .nop5
        case 0xb5: return .nop6
        case 0xb6: return .nop7
        case 0xb7: return .nop8
        case 0xb8: return .nop9
        case 0xb9: return .nop10
        case 0xba: return .checkSigAdd
        case 0xff: return .invalidOpcode
        case 0x51...0x60: return .number(byte - 0x50)
        case 0xbb...0xfe: return .unknown(byte)
        default: return nil
        }
    }
}
