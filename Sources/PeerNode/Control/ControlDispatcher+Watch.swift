import Transport

extension ControlDispatcher {
    /// `swap.watch`: re-attaches to a swap (after Ctrl-C, a detached `pay`, a restart). Each
    /// new event of the swap goes out as a progress line, with the `waiting` heartbeat
    /// between them; the result comes once the swap is final. A shutdown detaches it.
    func watchSwap(_ args: ControlArgs, progress: @escaping ControlProgress) async throws(ControlError) -> JSONValue {
        let id = try await resolveSwapID(try args.string("id"))
        let heartbeat = SwapHeartbeat()
        heartbeat.see(.object(["swap_id": .string(id)]))
        heartbeat.start(services: services, progress: progress)
        defer { heartbeat.stop() }
        var sent = 0
        while true {
            let events: [SwapEvent]
            do {
                events = try await services.store.events(of: id)
            } catch {
                throw .failed("the swap's events cannot be read: \(error)")
            }
            for event in events.dropFirst(sent) {
                await progress(.object(["stage": .string(event.kind), "detail": .string(Self.summary(event.data)),
                                        "swap_id": .string(id), "at": .integer(event.at)]))
            }
            sent = max(sent, events.count)
            if let last = events.last, last.isFinal {
                return .object(["swap_id": .string(id), "state": .string(last.kind), "final": .bool(true),
                                "updated_at": .integer(last.at)])
            }
            do {
                try await Task.sleep(nanoseconds: 500_000_000)
            } catch {
                throw .detached
            }
        }
    }

    /// An event's data in one line: its scalar members, txids and amounts first.
    static func summary(_ data: JSONValue) -> String {
        guard case .object(let members) = data else { return data == .null ? "" : data.canonicalString }
        let keys = members.keys.sorted { a, b in
            let ra = a.contains("txid") || a.hasSuffix("_sat") ? 0 : 1
            let rb = b.contains("txid") || b.hasSuffix("_sat") ? 0 : 1
            return ra != rb ? ra < rb : a < b
        }
        var parts: [String] = []
        for key in keys {
            switch members[key]! {
            case .string(let text): parts.append("\(key) \(text)")
            case .number(let text): parts.append("\(key) \(text)")
            case .bool(let flag): parts.append("\(key) \(flag)")
            default: continue
            }
        }
        return parts.joined(separator: ", ")
    }

    /// A swap id, or a unique prefix of one (at least 4 characters).
    func resolveSwapID(_ text: String) async throws(ControlError) -> String {
        do {
            if try await services.store.swap(text) != nil { return text }
            guard text.count >= 4 else {
                throw ControlError.notFound("no swap with id \(text) (a prefix needs at least 4 characters)")
            }
            let matches = try await services.store.allSwaps(limit: 100_000).map(\.id).filter { $0.hasPrefix(text) }
            switch matches.count {
            case 0: throw ControlError.notFound("no swap with id \(text)")
            case 1: return matches[0]
            default:
                throw ControlError.invalidRequest("\(matches.count) swaps start with \(text): "
                                                  + matches.prefix(5).joined(separator: ", ") + "; give more of the id")
            }
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }
}
