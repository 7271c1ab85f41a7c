import Bitcoin

/// A swap's on-chain contract, of either type: what the lock pays and how each side spends it.
public enum SwapContract: Sendable, Hashable {
    case taprootBoltz(TaprootSwapContract)
    case p2wsh(P2WSHSwapContract)

    /// The contract of `type` for `terms`.
    public init(type: ContractType, terms: SwapTerms) throws {
        switch type {
        case .taprootBoltz: self = .taprootBoltz(try TaprootSwapContract(terms: terms))
        case .p2wsh: self = .p2wsh(P2WSHSwapContract(terms: terms, layout: .sized))
        case .p2wshUnsized: self = .p2wsh(P2WSHSwapContract(terms: terms, layout: .unsized))
        }
    }

    public var type: ContractType {
        switch self {
        case .taprootBoltz: return .taprootBoltz
        case .p2wsh(let contract): return contract.layout == .sized ? .p2wsh : .p2wshUnsized
        }
    }

    public var terms: SwapTerms {
        switch self {
        case .taprootBoltz(let contract): return contract.terms
        case .p2wsh(let contract): return contract.terms
        }
    }

    public var address: Address {
        switch self {
        case .taprootBoltz(let contract): return contract.address
        case .p2wsh(let contract): return contract.address
        }
    }

    /// The script the lock output pays.
    public var scriptPubKey: Script { address.script }

    /// The address string on the terms' network.
    public var encodedAddress: String { address.encoded(for: terms.network) }

    /// Compares an address the provider advertised with the one computed from the terms.
    public func check(advertisedAddress: String) throws {
        guard let advertised = try? Address(advertisedAddress, network: terms.network), advertised == address else {
            throw HTLCError.contractMismatch("HTLC address")
        }
    }

    /// The spent output the sighash and the script interpreter need for a lock of `value`.
    public func lockOutput(value: Int64) -> TransactionOutput {
        TransactionOutput(value: value, scriptPubKey: scriptPubKey)
    }
}

extension SwapContract: CustomStringConvertible {
    /// A description a user can read: who can spend how, and the scripts themselves.
    public var description: String {
        let terms = terms
        var lines = [
            "\(type)\(terms.roles == .submarine ? " submarine" : "") swap contract on \(terms.network.rawValue), address \(encodedAddress)",
            "  claim:  the \(terms.roles.claimer.rawValue), with the preimage of payment hash \(terms.paymentHash.hex), at any time",
            "  refund: the \(terms.roles.refunder.rawValue), from block \(terms.timeoutHeight)",
        ]
        // Script assembly prints every push in hex (so 32 reads `20`, the timeout its CScriptNum).
        switch self {
        case .taprootBoltz(let contract):
            lines += [
                "  internal key (MuSig2 of provider, client): \(contract.internalKey.bytes.hex)",
                "  claim leaf (pushes in hex):  \(contract.claimLeaf.script)",
                "  refund leaf (pushes in hex): \(contract.refundLeaf.script)",
            ]
        case .p2wsh(let contract):
            lines.append("  witness script (pushes in hex): \(contract.witnessScript)")
        }
        return lines.joined(separator: "\n")
    }
}
