import Bitcoin
import HTLC

/// Claim and refund vsizes of each contract type, from `SpendSize` on a placeholder
/// contract. The keys and payment hash do not change any size; the timeout does, by its
/// CScriptNum length, so the placeholder uses a height with a 3-byte push (every mainnet
/// height today), never smaller than a real one.
public enum ContractSizes {
    /// The placeholder timeout: 3-byte CScriptNum, as on mainnet.
    public static let placeholderTimeoutHeight: UInt32 = 850_000

    private static let contracts: [ContractType: SwapContract] = {
        var contracts: [ContractType: SwapContract] = [:]
        do {
            let claim = try PrivateKey([UInt8](repeating: 0x01, count: 32)).publicKey
            let refund = try PrivateKey([UInt8](repeating: 0x02, count: 32)).publicKey
            let terms = try SwapTerms(network: .regtest, paymentHash: [UInt8](repeating: 0, count: 32),
                                      claimPublicKey: claim, refundPublicKey: refund,
                                      timeoutHeight: placeholderTimeoutHeight)
            // Retired types too: a lock made with one is still refunded and recovered.
            for type in ContractType.known {
                contracts[type] = try SwapContract(type: type, terms: terms)
            }
        } catch {
            preconditionFailure("fixed placeholder keys always form a contract: \(error)")
        }
        return contracts
    }()

    /// vsize of a claim of a `type` contract to a `destination` output.
    public static func claimVirtualSize(_ type: ContractType, destination: DestinationType) -> Int {
        SpendSize.claim(contract: contracts[type]!, destination: destination)
    }

    /// vsize of a refund of a `type` contract to a `destination` output.
    public static func refundVirtualSize(_ type: ContractType, destination: DestinationType) -> Int {
        SpendSize.refund(contract: contracts[type]!, destination: destination)
    }

    /// The claim fee the client pays (DESIGN 7: ceil(rate × claim_vsize)).
    public static func claimFee(_ type: ContractType, destination: DestinationType, rate: FeeRate) -> Int64 {
        rate.fee(forVirtualSize: claimVirtualSize(type, destination: destination))
    }
}
