import Bitcoin
import HTLC
import Transport

/// The stored form: the event's kind is the phase, its data every fact, transactions as
/// raw hex and the contract as the terms it is rebuilt from, so a restart resumes from the
/// store alone. Nothing secret is in it: no key, and the preimage only once it is public
/// (the invoice paid).
extension SubmarineClientState {
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "lock_confirmations": .integer(lockConfirmations),
            "claim_confirmations": .integer(claimConfirmations),
            "refund_confirmations": .integer(refundConfirmations),
        ]
        if let contract {
            let terms = contract.terms
            members["contract"] = .object([
                "script_type": .string(contract.type.rawValue),
                "network": .string(terms.network.rawValue),
                "payment_hash": .string(terms.paymentHash.hex),
                "claim_pubkey": .string(terms.claimPublicKey.compressed.hex),
                "refund_pubkey": .string(terms.refundPublicKey.compressed.hex),
                "timeout_height": .integer(terms.timeoutHeight),
            ])
        }
        if let funding { members["funding_tx"] = .string(funding.serialized.hex) }
        if let lock {
            members["lock"] = .object([
                "txid": .string(lock.outPoint.txid.hex), "vout": .integer(lock.outPoint.index), "value_sat": .integer(lock.value),
            ])
        }
        if let tipHeight { members["tip_height"] = .integer(tipHeight) }
        if let preimage { members["preimage"] = .string(preimage.hex) }
        if let preimageSource { members["preimage_source"] = .string(preimageSource.rawValue) }
        if let claimTxid { members["claim_txid"] = .string(claimTxid.hex) }
        if let refund { members["refund_tx"] = .string(refund.serialized.hex) }
        if !refundTxids.isEmpty { members["refund_txids"] = .array(refundTxids.map { .string($0.hex) }) }
        if let minedRefundTxid { members["mined_refund_txid"] = .string(minedRefundTxid.hex) }
        if let outcome {
            members["outcome"] = .object(["reason": .string(outcome.reason), "funds": .string(outcome.funds.rawValue)])
        }
        if let coopClaim { members["coop"] = coopClaim.json(direction: .onchainToLightning) }
        if let coopRefund { members["coop_refund_request"] = coopRefund.json }
        if coopRefundRounds > 0 { members["coop_refund_rounds"] = .integer(coopRefundRounds) }
        if let coopRefundFallback { members["coop_refund_fallback"] = .string(coopRefundFallback) }
        return .object(members)
    }

    /// Reads the state back from an event of kind `kind` and its data.
    public init(kind: String, data: JSONValue) throws(ClientEngineError) {
        guard let phase = SubmarineClientPhase(rawValue: kind) else { throw .corruptRecord("unknown event kind \(kind)") }
        self.init(phase: phase)
        lockConfirmations = Int(data["lock_confirmations"]?.int64Value ?? 0)
        claimConfirmations = Int(data["claim_confirmations"]?.int64Value ?? 0)
        refundConfirmations = Int(data["refund_confirmations"]?.int64Value ?? 0)
        tipHeight = data["tip_height"]?.int64Value.map { Int($0) }
        preimageSource = data["preimage_source"]?.stringValue.flatMap(PreimageSource.init(rawValue:))
        do {
            if let stored = data["contract"] {
                guard let type = stored["script_type"]?.stringValue.flatMap(ContractType.init(rawValue:)),
                      let network = stored["network"]?.stringValue.flatMap(Network.init(rawValue:)),
                      let hash = stored["payment_hash"]?.stringValue.flatMap({ [UInt8](hex: $0) }),
                      let claimKey = stored["claim_pubkey"]?.stringValue.flatMap({ [UInt8](hex: $0) }),
                      let refundKey = stored["refund_pubkey"]?.stringValue.flatMap({ [UInt8](hex: $0) }),
                      let timeout = stored["timeout_height"]?.uint64Value, timeout <= UInt64(UInt32.max) else {
                    throw ClientEngineError.corruptRecord("a submarine swap's contract lacks a field")
                }
                contract = try SwapContract(type: type, terms: try SwapTerms(
                    network: network, paymentHash: hash, claimPublicKey: try PublicKey(claimKey),
                    refundPublicKey: try PublicKey(refundKey), timeoutHeight: UInt32(timeout), roles: .submarine))
            }
            if let hex = data["funding_tx"]?.stringValue { funding = try Transaction(hex: hex) }
            if let stored = data["lock"], let txid = stored["txid"]?.stringValue, let vout = stored["vout"]?.uint64Value,
               let value = stored["value_sat"]?.int64Value {
                lock = LockOutput(outPoint: OutPoint(txid: try TransactionID(hex: txid), index: UInt32(clamping: vout)), value: value)
            }
            if let hex = data["preimage"]?.stringValue {
                guard let bytes = [UInt8](hex: hex), bytes.count == 32 else {
                    throw ClientEngineError.corruptRecord("a submarine swap's preimage is not 32 bytes of hex")
                }
                preimage = bytes
            }
            if let hex = data["claim_txid"]?.stringValue { claimTxid = try TransactionID(hex: hex) }
            if let hex = data["refund_tx"]?.stringValue { refund = try Transaction(hex: hex) }
            refundTxids = try (data["refund_txids"]?.arrayValue ?? []).compactMap(\.stringValue).map { try TransactionID(hex: $0) }
            minedRefundTxid = try data["mined_refund_txid"]?.stringValue.map { try TransactionID(hex: $0) }
            if let json = data["coop"] {
                guard let cosigned = CoopCosigned(json: json, direction: .onchainToLightning) else {
                    throw ClientEngineError.corruptRecord("a submarine swap's coop record does not decode")
                }
                coopClaim = cosigned
            }
            if let json = data["coop_refund_request"] {
                guard let round = CoopRound(json: json, kind: .refund) else {
                    throw ClientEngineError.corruptRecord("a submarine swap's coop_refund_request does not decode")
                }
                coopRefund = round
            }
            coopRefundRounds = Int(data["coop_refund_rounds"]?.int64Value ?? 0)
            coopRefundFallback = data["coop_refund_fallback"]?.stringValue
        } catch let error as ClientEngineError {
            throw error
        } catch {
            throw .corruptRecord("a submarine swap's record does not decode: \(error)")
        }
        if let stored = data["outcome"], let reason = stored["reason"]?.stringValue,
           let funds = stored["funds"]?.stringValue.flatMap(SubmarineClientFundsFate.init(rawValue:)) {
            outcome = SubmarineClientOutcome(reason: reason, funds: funds)
        }
    }
}
