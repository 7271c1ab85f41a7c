import Bitcoin
import Transport

extension ControlDispatcher {
    func swaps(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let limit = try args.optionalInt("limit", in: 1...10_000) ?? 100
        do {
            var rows: [JSONValue] = []
            for record in try await services.store.allSwaps(limit: Int(limit)) {
                let last = try await services.store.lastEvent(of: record.id)
                var row: [String: JSONValue] = [
                    "id": .string(record.id), "role": .string(record.role.rawValue), "peer": .string(record.peer),
                    "created_at": .integer(record.createdAt), "state": last.map { .string($0.kind) } ?? .null,
                    "final": .bool(last?.isFinal ?? false), "updated_at": last.map { .integer($0.at) } ?? .null,
                ]
                if let pubky = try? Pubky(parsing: record.peer), let contact = try await services.store.contact(nodeKey: pubky) {
                    row["peer_name"] = .string(contact.name)
                }
                row.merge(Self.summary(of: record)) { _, new in new }
                row.merge(Self.proofOfPayment(record, last: last)) { _, new in new }
                if let funds = try await currentFunds(record, last: last) { row["funds"] = .string(funds.rawValue) }
                rows.append(.object(row))
            }
            // Direct payments (savings, Lightning) are no swaps; listed beside them so `swaps` accounts for all.
            await DirectLightningPayment.settleInFlight(store: services.store, lightning: services.lightning)
            let payments = try await DirectPayments.newest(Int(limit), in: services.store).map(\.payment)
            return .object(["swaps": .array(rows), "payments": .array(payments)])
        } catch {
            throw .failed(error.description)
        }
    }

    func showSwap(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let id = try await resolveSwapID(try args.string("id"))
        do {
            guard let record = try await services.store.swap(id) else { throw ControlError.notFound("no swap with id \(id)") }
            let events = try await services.store.events(of: id)
            // A client's unconfirmed claim holds the preimage in its witness: withheld (L-5).
            let data = record.role == .client ? ClientSwapDisplay.shown(events) : events.map(\.data)
            let proof = Self.proofOfPayment(record, last: events.last)
            let funds = try await currentFunds(record, last: events.last)
            return .object([
                "proof_of_payment": proof.isEmpty ? .null : .object(proof),
                "funds": funds.map { .object(["fate": .string($0.rawValue), "text": .string($0.description)]) } ?? .null,
                "swap": .object(["id": .string(record.id), "role": .string(record.role.rawValue),
                                 "swap_index": .integer(record.swapIndex), "peer": .string(record.peer),
                                 "created_at": .integer(record.createdAt), "contract": record.contract]),
                "events": .array(zip(events, data).map { event, data in
                    .object(["sequence": .integer(event.sequence), "kind": .string(event.kind), "data": data,
                             "final": .bool(event.isFinal), "at": .integer(event.at)])
                }),
            ])
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Where an ended reverse client swap left the user's money, as it stands now: the fate
    /// its final event recorded, moved on by the end of a payment that was held then, once
    /// the engine has recorded it (`ClientFundsFate.after`): `returned` or `lost`. Nil for
    /// any other swap.
    private func currentFunds(_ record: SwapRecord, last: SwapEvent?) async throws(StoreError) -> ClientFundsFate? {
        guard record.role == .client, !SubmarineClientRecord.isSubmarine(record.contract), let last, last.isFinal,
              let fate = (try? ClientSwapState(kind: last.kind, data: last.data))?.outcome?.funds else { return nil }
        guard fate.awaitsPayment else { return fate }
        return fate.after(try await ClientEngine.recordedPaymentEnd(record.id, in: services.store))
    }

    /// The proof of payment of a submarine client swap: the preimage (SHA-256 = the
    /// invoice's payment hash) and where it was learned (`claim`, `settled_invoice`,
    /// `provider_status`), from `paid` on. Shown once paid rather than once the claim is
    /// public: the invoice is settled by then, so the preimage moves no money any more (the
    /// lock's claim path still needs the provider's signature), and a swap-in learns it from
    /// its own settled invoice before the provider's claim is mined. Only a submarine client's
    /// state carries one: a reverse client's preimage is never in its events, and the claim
    /// whose witness holds it is withheld until it confirms (`ClientSwapDisplay`).
    static func proofOfPayment(_ record: SwapRecord, last: SwapEvent?) -> [String: JSONValue] {
        guard record.role == .client, SubmarineClientRecord.isSubmarine(record.contract),
              let hash = record.contract["payment_hash"]?.stringValue.flatMap({ [UInt8](hex: $0) }),
              let hex = last?.data["preimage"]?.stringValue, let preimage = [UInt8](hex: hex), preimage.count == 32,
              SHA256.hash(preimage) == hash else { return [:] }
        return ["preimage": .string(hex), "preimage_source": last?.data["preimage_source"] ?? .null]
    }

    /// What `swaps` shows of a swap's contract: its kind, the amount, where it goes and the
    /// fees (a client's: what it pays above the amount, routing excluded; a provider's: its
    /// service fee earned).
    static func summary(of record: SwapRecord) -> [String: JSONValue] {
        let contract = record.contract
        if SwapAccountingEntry.isSubmarine(contract) {
            // On-chain → Lightning: the amount is the invoice's, the fees what the lock adds.
            let quote = contract["quote"]
            var out: [String: JSONValue] = ["direction": .string("onchain_to_ln"), "amount_sat": quote?["amount_sat"] ?? .null]
            switch record.role {
            case .client:
                out["kind"] = .string(contract["own_invoice"]?.boolValue == true ? "swap-in" : "pay")
                if let total = quote?["total_sat"]?.int64Value, let amount = quote?["amount_sat"]?.int64Value {
                    out["fees_sat"] = .integer(total - amount)
                }
            case .provider:
                out["kind"] = .string("provide")
                out["fees_sat"] = quote?["service_fee_sat"] ?? .null
            }
            return out
        }
        switch record.role {
        case .client where SubmarineClientRecord.isSubmarine(contract):
            // Savings -> Lightning: what the lock holds above the invoice is the fees.
            let own = contract["own_invoice"]?.boolValue == true
            var out: [String: JSONValue] = ["kind": .string(own ? "swap-in" : "pay"),
                                            "amount_sat": contract["quote"]?["amount_sat"] ?? .null,
                                            "destination": .string(own ? "this node's Lightning balance" : "a Lightning invoice")]
            if let total = contract["quote"]?["total_sat"]?.int64Value, let amount = contract["quote"]?["amount_sat"]?.int64Value {
                out["fees_sat"] = .integer(total - amount)
            }
            return out
        case .client:
            // The command that made it, as the user typed it.
            let kind: JSONValue = switch contract["purpose"]?.stringValue {
            case "payContact"?: .string("pay")
            case "swapOut"?: .string("swap-out")
            default: contract["purpose"] ?? .null
            }
            var out: [String: JSONValue] = ["kind": kind, "amount_sat": contract["amount_sat"] ?? .null,
                                            "destination": contract["destination"] ?? .null]
            if let total = contract["quote"]?["total_sat"]?.int64Value, let amount = contract["amount_sat"]?.int64Value {
                out["fees_sat"] = .integer(total - amount)
            }
            return out
        case .provider:
            return ["kind": .string("provide"), "amount_sat": contract["quote"]?["amount_sat"] ?? .null,
                    "fees_sat": contract["quote"]?["service_fee_sat"] ?? .null]
        }
    }
}
