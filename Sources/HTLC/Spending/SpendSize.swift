import Bitcoin

/// Virtual sizes of claims and refunds, from a transaction of exactly the shape the builders
/// sign, with placeholder bytes of the final sizes in the witness.
///
/// Schnorr signatures are always 64 bytes, so Taproot sizes are exact. DER ECDSA
/// signatures are 70 to 72 bytes (low-S, and r is 33 bytes half the time), so P2WSH sizes
/// assume the maximum, 72 + 1 hash-type byte: the estimate is at most one vbyte above the
/// signed transaction and the fee is never short. Tests check both against signed spends.
public enum SpendSize {
    /// The largest DER signature plus its SIGHASH_ALL byte.
    public static let maximumECDSASignatureSize = 72 + 1

    /// vsize of the claim of `contract` paying one `destination` output.
    public static func claim(contract: SwapContract, destination: DestinationType) -> Int {
        virtualSize(contract: contract, path: .claim(preimage: [UInt8](repeating: 0, count: 32)),
                    destination: destination, lockTime: 0)
    }

    /// vsize of the refund of `contract` paying one `destination` output.
    public static func refund(contract: SwapContract, destination: DestinationType) -> Int {
        virtualSize(contract: contract, path: .refund, destination: destination, lockTime: contract.terms.timeoutHeight)
    }

    private static func virtualSize(contract: SwapContract, path: SpendPath, destination: DestinationType,
                                    lockTime: UInt32) -> Int {
        let signatureSize = contract.type == .taprootBoltz ? SchnorrSignature.byteCount : maximumECDSASignatureSize
        let witness = SpendSigner.witness(contract: contract, path: path,
                                          signature: [UInt8](repeating: 0, count: signatureSize))
        let input = TransactionInput(previousOutput: OutPoint(txid: .zero, index: 0),
                                     sequence: TransactionInput.replaceableSequence, witness: witness)
        let output = TransactionOutput(value: 0, scriptPubKey: destination.placeholderScript)
        return Transaction(version: 2, inputs: [input], outputs: [output], lockTime: lockTime).virtualSize
    }
}
