import Bitcoin

/// Names the script error of an input the kernel refused, for Core's
/// `mempool-script-verify-flag-failed (<script error>)` reason. libbitcoinkernel returns
/// only valid/invalid, so the text is derived, not read: a timelock failure is found by
/// asking the kernel again without CHECKLOCKTIMEVERIFY or CHECKSEQUENCEVERIFY; other
/// failures are named from the spend's shape as Core's interpreter (with the policy flags
/// its mempool uses, NULLFAIL among them) would report them for that shape. The verdict
/// itself is always the kernel's.
enum ScriptFailureDiagnosis {
    static let lockTime = "Locktime requirement not satisfied"
    static let nullFail = "Signature must be zero for failed CHECK(MULTI)SIG operation"
    static let equalVerify = "Script failed an OP_EQUALVERIFY operation"
    static let programMismatch = "Witness program hash mismatch"
    static let emptyWitness = "Witness program was passed an empty witness"
    static let schnorr = "Invalid Schnorr signature"
    static let evalFalse = "Script evaluated without error but finished with a false/empty top stack element"

    static func describe(transaction: Transaction, inputIndex: Int, spentOutputs: [TransactionOutput],
                         verifier: KernelVerifier) -> String {
        for rule: ScriptVerificationFlags in [.checkLockTimeVerify, .checkSequenceVerify] {
            let relaxed = ScriptVerificationFlags.all.subtracting(rule)
            if (try? verifier.verify(transaction: transaction, inputIndex: inputIndex, spentOutputs: spentOutputs,
                                     flags: relaxed)) == true {
                return lockTime
            }
        }
        let stack = transaction.inputs[inputIndex].witness.stack
        switch try? Address(script: spentOutputs[inputIndex].scriptPubKey) {
        case .p2wpkh(let hash):
            guard stack.count == 2 else { return programMismatch }
            guard Hash160.hash(stack[1]) == hash else { return equalVerify }
            return stack[0].isEmpty ? evalFalse : nullFail
        case .p2wsh(let hash):
            guard let witnessScript = stack.last else { return emptyWitness }
            guard SHA256.hash(witnessScript) == hash else { return programMismatch }
            return looksLikeFailedSignature(stack.dropLast(), script: Script(bytes: witnessScript)) ? nullFail : evalFalse
        case .p2tr:
            // One element (or two with an annex, which starts 0x50) is a key-path spend.
            let keyPath = stack.count == 1 || (stack.count == 2 && stack[1].first == 0x50)
            return keyPath ? schnorr : evalFalse
        default:
            return evalFalse
        }
    }

    /// A DER-shaped element handed to a script that checks signatures: the usual reason such
    /// a script fails is that signature.
    private static func looksLikeFailedSignature(_ items: ArraySlice<[UInt8]>, script: Script) -> Bool {
        let checksSignatures = (try? script.opcodes())?.contains {
            [.checkSig, .checkSigVerify, .checkMultiSig, .checkMultiSigVerify].contains($0)
        } ?? false
        return checksSignatures && items.contains { $0.count >= 9 && $0.count <= 73 && $0.first == 0x30 }
    }
}
