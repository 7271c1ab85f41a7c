import Bitcoin

extension LNDRESTHandler {
    /// `PublishTransaction` into `chain`'s mempool, answering as LND on bitcoind answers
    /// (its wallet tests the mempool's acceptance first, then maps the refusal): a
    /// transaction already in the mempool or confirmed is published; a spent or missing
    /// input is "output already spent"; a fee under the mempool's or the relay minimum is
    /// "rejected by the mempool because of low fees"; anything else is the reject reason.
    public static func publishing(to chain: RegtestChain) -> @Sendable (Transaction) throws(LNDRPCError) -> Void {
        { transaction throws(LNDRPCError) in
            do {
                try chain.submit(transaction)
            } catch let rejection as MempoolRejection {
                if let error = LNDRPCError(publishRefusal: rejection) { throw error }
            } catch {
                throw LNDRPCError(.unknown, "\(error)")
            }
        }
    }
}

extension LNDRPCError {
    /// LND's answer to a publish the mempool refused; nil when LND counts it published
    /// (the transaction is confirmed already).
    init?(publishRefusal rejection: MempoolRejection) {
        switch rejection.kind {
        case .alreadyInUTXOSet:
            return nil
        case .missingInputs:
            self.init(.unknown, "transaction rejected: output already spent")
        case .maxFeeExceeded:
            self.init(.unknown, rejection.testAcceptReason)
        case .rejected:
            switch rejection.reason {
            case "txn-mempool-conflict":
                self.init(.unknown, "transaction rejected: output already spent")
            case "min relay fee not met", "mempool min fee not met":
                self.init(.unknown, "transaction rejected by the mempool because of low fees: \(rejection.reason)")
            default:
                self.init(.unknown, rejection.message)
            }
        }
    }
}
