import Transport

extension ControlDispatcher {
    func swaps(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let limit = try args.optionalInt("limit", in: 1...10_000) ?? 100
        do {
            var rows: [JSONValue] = []
            for record in try await services.store.allSwaps(limit: Int(limit)) {
                let last = try await services.store.lastEvent(of: record.id)
                rows.append(.object([
                    "id": .string(record.id), "role": .string(record.role.rawValue), "peer": .string(record.peer),
                    "created_at": .integer(record.createdAt), "state": last.map { .string($0.kind) } ?? .null,
                    "final": .bool(last?.isFinal ?? false), "updated_at": last.map { .integer($0.at) } ?? .null,
                ]))
            }
            return .object(["swaps": .array(rows)])
        } catch {
            throw .failed(error.description)
        }
    }

    func showSwap(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let id = try args.string("id")
        do {
            guard let record = try await services.store.swap(id) else { throw ControlError.notFound("no swap with id \(id)") }
            let events = try await services.store.events(of: id)
            // A client's unconfirmed claim holds the preimage in its witness: withheld (L-5).
            let data = record.role == .client ? ClientSwapDisplay.shown(events) : events.map(\.data)
            return .object([
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
}
