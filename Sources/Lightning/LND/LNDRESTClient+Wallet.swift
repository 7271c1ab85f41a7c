import Bitcoin

extension LNDRESTClient {
    /// WalletKit's `PublishTransaction` (`POST /v2/wallet/tx`): LND tests the transaction
    /// against its chain backend's mempool and relays it, and sends it again at each start
    /// until it confirms. One already in the mempool or the chain is no error (LND's own
    /// rule). A refusal is `.lnd` with LND's message: "transaction rejected: output
    /// already spent", "transaction rejected by the mempool because of low fees: …", or
    /// the backend's reject reason. Needs `onchain:write`.
    public func publishTransaction(_ transaction: Transaction, label: String) async throws(LightningBackendError) {
        _ = try await call(.post, "/v2/wallet/tx", body: .object([
            "tx_hex": LNDJSON.bytes(transaction.serialized), "label": .string(label),
        ]))
    }
}
