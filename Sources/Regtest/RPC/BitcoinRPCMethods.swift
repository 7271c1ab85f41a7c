import Bitcoin

/// The hub's method table: Core's blockchain, raw-transaction, mining, control and network
/// methods the node uses, plus `hub_*` control methods. Each group lives in its own file.
public enum BitcoinRPCMethods {
    public static func all(_ hub: HubChain) -> [RPCMethod] {
        blockchain(hub) + mempool(hub) + rawTransactions(hub) + mining(hub) + network(hub) + package(hub) + spending(hub) + indexInfo(hub) + hubControl(hub) + hubHarm(hub)
    }

    /// `ChainError`s surface as Core's closest answers: an unknown block is -5, anything
    /// else (a hub bug or an impossible request) is -1 with the hub's explanation.
    static func rpcError(_ error: any Error) -> RPCError {
        if let error = error as? RPCError { return error }
        if let error = error as? ChainError, case .unknownBlock = error { return .invalidAddressOrKey("Block not found") }
        return .misc("\(error)")
    }
}
