import Bitcoin
import Lightning
import Transport

/// Each endpoint: its request fields read, one simulator call, its answer written.
extension LNDRESTHandler {
    /// The version `getinfo` reports: the LND release whose REST shapes are served.
    static let version = "0.18.0-beta peernode-regtest"

    func unary(_ route: Route, target: LNDTarget, body: [UInt8]) throws(LNDRPCError) -> JSONValue {
        switch route {
        case .getInfo: return try getInfo()
        case .channelBalance: return try channelBalance()
        case .listChannels: return try listChannels()
        case .addInvoice: return try addInvoice(LNDRequestBody(body, fields: LNDRequestFields.invoice))
        case .lookupInvoiceV1(let hashHex):
            guard let hash = [UInt8](hex: hashHex) else {
                throw LNDRPCError(.unknown, "unable to decode r_hash_str: invalid hex")
            }
            return try lookup(hash)
        case .addHoldInvoice: return try addHoldInvoice(LNDRequestBody(body, fields: LNDRequestFields.addHoldInvoice))
        case .settleInvoice: return try settleInvoice(LNDRequestBody(body, fields: LNDRequestFields.settleInvoice))
        case .cancelInvoice: return try cancelInvoice(LNDRequestBody(body, fields: LNDRequestFields.cancelInvoice))
        case .lookupInvoiceV2:
            let hash = try LNDTarget.bytes(target.query["payment_hash"] ?? "", field: "payment_hash")
            return try lookup(hash)
        case .publishTransaction:
            return try publishTransaction(LNDRequestBody(body, fields: LNDRequestFields.publishTransaction))
        case .decodePayReq(let request):
            do {
                return LNDMessages.payReq(try network.decodePaymentRequest(request))
            } catch {
                throw LNDRPCError(error)
            }
        case .subscribeInvoice, .sendPayment, .trackPayment:
            preconditionFailure("streamed routes are answered by stream(_:target:body:)")
        }
    }

    func stream(_ route: Route, target: LNDTarget, body: [UInt8]) throws(LNDRPCError) -> HTTPServerResponse {
        let channelID = self.channelID
        switch route {
        case .subscribeInvoice(let hashText):
            let hash = try LNDTarget.bytes(hashText, field: "r_hash")
            do {
                let updates = try network.subscribeInvoice(node: node, paymentHash: hash)
                return streaming(updates) { LNDMessages.invoice($0, channelID: channelID) }
            } catch .invoiceNotFound where faults.silentUnknownInvoice {
                // LND keeps the subscription open with nothing on it.
                return streaming(AsyncStream<Int> { _ in }) { _ in .null }
            } catch {
                throw LNDRPCError(error, notFoundCode: true)
            }
        case .sendPayment:
            return try sendPayment(LNDRequestBody(body, fields: LNDRequestFields.sendPayment))
        case .trackPayment(let hashText):
            let hash = try LNDTarget.bytes(hashText, field: "payment_hash")
            do {
                return streaming(try network.trackPayment(node: node, paymentHash: hash), LNDMessages.payment)
            } catch {
                throw LNDRPCError(error)
            }
        default:
            preconditionFailure("unary routes are answered by unary(_:target:body:)")
        }
    }

    // MARK: node

    private func getInfo() throws(LNDRPCError) -> JSONValue {
        let info = try nodeInfo()
        let active = info.isOnline ? 1 : 0
        let best = bestBlock() ?? (network.blockHeight, "")
        return .object([
            "version": .string(Self.version),
            "commit_hash": .string(""),
            "identity_pubkey": .string(info.identityKey.compressed.hex),
            "alias": .string(info.alias),
            "color": .string("#3399ff"),
            "num_pending_channels": LNDJSON.int32(0),
            "num_active_channels": LNDJSON.int32(active),
            "num_inactive_channels": LNDJSON.int32(1 - active),
            "num_peers": LNDJSON.int32(active),
            "block_height": LNDJSON.int32(best.height),
            "block_hash": .string(best.hash),
            "best_header_timestamp": LNDJSON.int64(0),
            "synced_to_chain": .bool(true),
            "synced_to_graph": .bool(true),
            "testnet": .bool(false),
            "chains": .array([.object(["chain": .string("bitcoin"), "network": .string("regtest")])]),
            "uris": .array([]),
            "features": .object([:]),
            "require_htlc_interceptor": .bool(false),
            "store_final_htlc_resolutions": .bool(false),
        ])
    }

    /// `lnrpc.ChannelBalanceResponse`: the local balance, reserve included, after the funder's
    /// commitment fee and anchors (LND sums each commitment's local balance; what it can send
    /// is less, `/v1/channels` says how much). The simulator has no remote side, pending
    /// channels or unsettled HTLCs to report.
    private func channelBalance() throws(LNDRPCError) -> JSONValue {
        let msat = try nodeInfo().localBalanceMsat
        func amount(_ msat: UInt64) -> JSONValue {
            .object(["sat": LNDJSON.int64(msat / 1000), "msat": LNDJSON.int64(msat)])
        }
        return .object([
            "balance": LNDJSON.int64(msat / 1000),
            "pending_open_balance": LNDJSON.int64(0),
            "local_balance": amount(msat),
            "remote_balance": amount(0),
            "unsettled_local_balance": amount(0),
            "unsettled_remote_balance": amount(0),
            "pending_open_local_balance": amount(0),
            "pending_open_remote_balance": amount(0),
        ])
    }

    /// `lnrpc.ListChannelsResponse` with the node's one channel: capacity, local balance (a
    /// funder's after its commitment fee and anchors), the reserve it may not send
    /// (`local_constraints.chan_reserve_sat`, and the deprecated `local_chan_reserve_sat`),
    /// and what its fee buffer is computed from (`initiator`, `commit_fee`, `commit_weight`,
    /// `fee_per_kw`).
    private func listChannels() throws(LNDRPCError) -> JSONValue {
        let info = try nodeInfo()
        let reserveSat = LNDJSON.int64(info.reserveMsat / 1_000)
        func constraints(reserve: JSONValue) -> JSONValue {
            .object(["csv_delay": LNDJSON.int32(144), "chan_reserve_sat": reserve, "dust_limit_sat": LNDJSON.int64(354),
                     "max_pending_amt_msat": LNDJSON.int64(info.capacityMsat), "min_htlc_msat": LNDJSON.int64(1),
                     "max_accepted_htlcs": LNDJSON.int32(483)])
        }
        let channel: JSONValue = .object([
            "active": .bool(info.isOnline),
            "chan_id": LNDJSON.int64(channelID),
            "capacity": LNDJSON.int64(info.capacityMsat / 1_000),
            "local_balance": LNDJSON.int64(info.localBalanceMsat / 1_000),
            "remote_balance": LNDJSON.int64(0),
            "commit_fee": LNDJSON.int64(info.commitFeeMsat / 1_000),
            "commit_weight": LNDJSON.int64(info.commitWeight),
            "fee_per_kw": LNDJSON.int64(SimulatedNode.commitFeePerKw),
            "commitment_type": .string("ANCHORS"),
            "unsettled_balance": LNDJSON.int64(0),
            "local_chan_reserve_sat": reserveSat,
            "remote_chan_reserve_sat": reserveSat,
            "initiator": .bool(info.isFunder),
            "private": .bool(false),
            "pending_htlcs": .array([]),
            "local_constraints": constraints(reserve: reserveSat),
            "remote_constraints": constraints(reserve: reserveSat),
        ])
        return .object(["channels": .array([channel])])
    }

    // MARK: invoices

    private func addInvoice(_ body: LNDRequestBody) throws(LNDRPCError) -> JSONValue {
        try refuseDescriptionHash(body)
        let preimage = try body.bytes("r_preimage")
        let amount = try amountMsat(body, sat: "value", msat: "value_msat")
        let memo = try body.string("memo"), expiry = try body.nonNegativeInt64("expiry")
        let cltvExpiry = try body.uint64("cltv_expiry")
        do {
            let added = try network.addInvoice(node: node, amountMsat: amount, memo: memo, expirySeconds: expiry,
                                               cltvExpiry: cltvExpiry, preimage: preimage.isEmpty ? nil : preimage)
            return .object([
                "r_hash": LNDJSON.bytes(added.paymentHash),
                "payment_request": .string(added.paymentRequest),
                "add_index": LNDJSON.int64(added.addIndex),
                "payment_addr": LNDJSON.bytes(added.paymentAddress),
            ])
        } catch {
            throw LNDRPCError(error)
        }
    }

    private func addHoldInvoice(_ body: LNDRequestBody) throws(LNDRPCError) -> JSONValue {
        try refuseDescriptionHash(body)
        let hash = try body.bytes("hash")
        let amount = try amountMsat(body, sat: "value", msat: "value_msat")
        let memo = try body.string("memo"), expiry = try body.nonNegativeInt64("expiry")
        let cltvExpiry = try body.uint64("cltv_expiry")
        do {
            let added = try network.addHoldInvoice(node: node, paymentHash: hash, amountMsat: amount, memo: memo,
                                                   expirySeconds: expiry, cltvExpiry: cltvExpiry)
            return .object([
                "payment_request": .string(added.paymentRequest),
                "add_index": LNDJSON.int64(added.addIndex),
                "payment_addr": LNDJSON.bytes(added.paymentAddress),
            ])
        } catch {
            throw LNDRPCError(error)
        }
    }

    /// Settling a settled invoice succeeds: LND's SettleInvoice ignores
    /// ErrInvoiceAlreadySettled, so a retried settle is harmless.
    private func settleInvoice(_ body: LNDRequestBody) throws(LNDRPCError) -> JSONValue {
        let preimage = try body.bytes("preimage")
        do {
            try network.settleInvoice(node: node, preimage: preimage)
        } catch .invoiceAlreadySettled {
            // Idempotent, as in LND.
        } catch {
            throw LNDRPCError(error)
        }
        return .object([:])
    }

    /// WalletKit's PublishTransaction: an empty `tx_hex` or bytes that are no transaction
    /// are refused as LND refuses them; the rest goes to the chain (`publish`).
    private func publishTransaction(_ body: LNDRequestBody) throws(LNDRPCError) -> JSONValue {
        let bytes = try body.bytes("tx_hex")
        guard !bytes.isEmpty else { throw LNDRPCError(.unknown, "must provide a transaction to publish") }
        guard try body.string("label").count <= 500 else {
            throw LNDRPCError(.unknown, "label length: 501 exceeds limit of 500")
        }
        let transaction: Transaction
        do { transaction = try Transaction(bytes: bytes) } catch {
            throw LNDRPCError(.unknown, "unexpected EOF")
        }
        try publish(transaction)
        return .object([:])
    }

    private func cancelInvoice(_ body: LNDRequestBody) throws(LNDRPCError) -> JSONValue {
        let hash = try body.bytes("payment_hash")
        do {
            try network.cancelInvoice(node: node, paymentHash: hash)
        } catch {
            throw LNDRPCError(error)
        }
        return .object([:])
    }

    /// LookupInvoice and LookupInvoiceV2 answer an unknown hash with NotFound (404).
    private func lookup(_ hash: [UInt8]) throws(LNDRPCError) -> JSONValue {
        do {
            return LNDMessages.invoice(try network.lookupInvoice(node: node, paymentHash: hash), channelID: channelID)
        } catch {
            throw LNDRPCError(error, notFoundCode: true)
        }
    }

    // MARK: payments

    private func sendPayment(_ body: LNDRequestBody) throws(LNDRPCError) -> HTTPServerResponse {
        // Counted before any check, so that refused sends count too.
        let named = try? body.string("payment_request")
        faults.countSend(paymentHash: named.flatMap { try? network.decodePaymentRequest($0).paymentHash })
        let request = try body.string("payment_request")
        let amount = try amountMsat(body, sat: "amt", msat: "amt_msat")
        let feeLimit = try amountMsat(body, sat: "fee_limit_sat", msat: "fee_limit_msat")
        let cltvLimit = try body.uint32("cltv_limit"), timeout = try body.uint32("timeout_seconds")
        let updates: AsyncStream<SimulatedPayment>
        do {
            updates = try network.sendPayment(from: node, paymentRequest: request, amountMsat: amount,
                                              feeLimitMsat: feeLimit, cltvLimit: cltvLimit, timeoutSeconds: timeout)
        } catch {
            throw LNDRPCError(error)
        }
        if faults.takeSendErrorAfterStart() {
            // The payment is registered and goes on; only its answer is lost.
            throw LNDRPCError(.unknown, "routerrpc server shutting down")
        }
        return streaming(updates, breakAfterFirst: faults.takeSendStreamError(),
                         silentAfterFirst: faults.takeSilentSendStream(), LNDMessages.payment)
    }

    // MARK: helpers

    private func nodeInfo() throws(LNDRPCError) -> LightningNodeInfo {
        do {
            return try network.node(node)
        } catch {
            throw LNDRPCError(error)
        }
    }

    /// A sat/msat pair of fields, which LND takes one at a time (lnrpc.UnmarshallAmt).
    private func amountMsat(_ body: LNDRequestBody, sat: String, msat: String) throws(LNDRPCError) -> UInt64 {
        let sats = try body.nonNegativeInt64(sat)
        let msats = try body.nonNegativeInt64(msat)
        guard sats == 0 || msats == 0 else {
            throw LNDRPCError(.unknown, "sat and msat arguments are mutually exclusive")
        }
        let (scaled, overflow) = sats.multipliedReportingOverflow(by: 1000)
        guard !overflow else { throw LNDRPCError(.unknown, "amount out of range") }
        return msats == 0 ? scaled : msats
    }

    /// The simulator writes the memo as the `d` field; a description hash it cannot honour
    /// is refused rather than silently dropped.
    private func refuseDescriptionHash(_ body: LNDRequestBody) throws(LNDRPCError) {
        guard try body.bytes("description_hash").isEmpty else {
            throw LNDRPCError(.unimplemented, "description_hash is not supported by the regtest simulator")
        }
    }

    /// A simulator stream as LND's gateway streams it: one `{"result": ...}` line per
    /// value, ending when the simulator's stream ends (at a final state). A client that
    /// goes away ends the forwarding task, and with it the simulator's subscription. An
    /// injected fault (`LNDFaults`) ends it early with LND's shutdown error line:
    /// `breakAfterFirst` after the first value, a restart at once.
    func streaming<Value: Sendable>(_ source: AsyncStream<Value>, breakAfterFirst: Bool = false, silentAfterFirst: Bool = false,
                                    _ encode: @escaping @Sendable (Value) -> JSONValue) -> HTTPServerResponse {
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let faults = self.faults
        let key = faults.opened {
            continuation.yield(LNDFaults.shutdownLine)
            continuation.finish()
        }
        let forwarder = Task {
            for await value in source {
                continuation.yield(LNDJSON.streamLine(result: encode(value)))
                if breakAfterFirst {
                    continuation.yield(LNDFaults.shutdownLine)
                    break
                }
                if silentAfterFirst {
                    // Open and mute until the client closes it (`onTermination` cancels this).
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
                    break
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            forwarder.cancel()
            faults.closed(key)
        }
        return .streaming(HTTPStreamingResponse(status: .ok, headers: ["Content-Type": "application/json"], body: body))
    }
}
