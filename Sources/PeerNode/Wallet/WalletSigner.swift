import Bitcoin

/// Signs every input of a wallet transaction: BIP341 key path, SIGHASH_DEFAULT (which
/// commits to all inputs' amounts and scripts, so a signature cannot be reused with other
/// prevouts), with the BIP86-tweaked key of the output each input spends.
enum WalletSigner {
    static func sign(_ unsigned: Transaction, spentOutputs: [TransactionOutput],
                     keys: WalletKeys) throws(WalletError) -> Transaction {
        let sighash: TaprootSighash
        do {
            sighash = try TaprootSighash(transaction: unsigned, spentOutputs: spentOutputs)
        } catch {
            throw WalletError.signing("\(error)")
        }
        var signed = unsigned
        for index in unsigned.inputs.indices {
            guard let key = try keys.signingKey(for: spentOutputs[index].scriptPubKey) else {
                throw WalletError.signing("input \(index) spends an output that pays no wallet key")
            }
            do {
                let digest = try sighash.hash(inputIndex: index, hashType: .default)
                let signature = try SchnorrSignature.sign(message: digest, with: key)
                signed.inputs[index].witness = Witness([signature.bytes])
            } catch {
                throw WalletError.signing("input \(index): \(error)")
            }
        }
        return signed
    }
}
