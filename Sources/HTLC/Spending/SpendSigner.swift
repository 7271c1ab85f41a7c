import Bitcoin

/// Signs the single lock input of a claim or refund and puts the witness in place.
///
/// Low level on purpose: it signs whatever transaction and key it is given, so the builders
/// (which check keys, preimages, amounts and lock times first) and tests that must produce
/// deliberately wrong spends share one signing path.
///
/// - Taproot: BIP341 script-path sighash over the spent leaf, SIGHASH_DEFAULT, so the
///   signature is 64 bytes with no hash-type byte.
/// - P2WSH: BIP143 sighash with the witness script as script code, SIGHASH_ALL, a low-S DER
///   signature (70 to 72 bytes) plus the hash-type byte.
public enum SpendSigner {
    /// Returns `transaction` with input 0's witness spending `contract` along `path`.
    /// Claims and refunds have exactly one input, the lock.
    public static func sign(_ transaction: Transaction, contract: SwapContract, lockValue: Int64,
                            path: SpendPath, key: PrivateKey) throws -> Transaction {
        guard transaction.inputs.count == 1 else {
            throw HTLCError.bitcoin(.invalidTransaction("a claim or refund spends exactly one input, the lock"))
        }
        let signature = try HTLCError.wrapping { () throws -> [UInt8] in
            switch contract {
            case .taprootBoltz(let taproot):
                let leaf = path == .refund ? taproot.refundLeaf : taproot.claimLeaf
                let sighash = try TaprootSighash(transaction: transaction, spentOutputs: [contract.lockOutput(value: lockValue)])
                    .hash(inputIndex: 0, hashType: .default, scriptPath: TaprootSighash.ScriptPath(leaf: leaf))
                return try SchnorrSignature.sign(message: sighash, with: key).bytes
            case .p2wsh(let p2wsh):
                let sighash = try SegwitV0Sighash(transaction: transaction)
                    .hash(inputIndex: 0, scriptCode: p2wsh.witnessScript, amount: lockValue, hashType: .all)
                return try ECDSASignature.sign(digest: sighash, with: key).der + [SighashType.all.byte]
            }
        }
        var signed = transaction
        signed.inputs[0].witness = witness(contract: contract, path: path, signature: signature)
        return signed
    }

    /// The witness stack for `path` around a finished signature (with its hash-type byte
    /// for P2WSH). Also used with placeholder signatures to size transactions.
    static func witness(contract: SwapContract, path: SpendPath, signature: [UInt8]) -> Witness {
        switch (contract, path) {
        case (.taprootBoltz(let taproot), .claim(let preimage)):
            return Witness([signature, preimage, taproot.claimLeaf.script.bytes, taproot.claimControlBlock.bytes])
        case (.taprootBoltz(let taproot), .refund):
            return Witness([signature, taproot.refundLeaf.script.bytes, taproot.refundControlBlock.bytes])
        case (.p2wsh(let p2wsh), .claim(let preimage)):
            // 0x01 selects OP_IF; MINIMALIF (segwit v0 policy) accepts exactly 0x01 as true.
            return Witness([signature, preimage, [0x01], p2wsh.witnessScript.bytes])
        case (.p2wsh(let p2wsh), .refund):
            // The empty item selects OP_ELSE; MINIMALIF accepts only the empty vector as false.
            return Witness([signature, [], p2wsh.witnessScript.bytes])
        }
    }
}
