/// `hub_pkarr_relays` and `hub_pkarr_relay`: the hub's test pkarr relays (`PkarrRelay`),
/// what each has served and stored, and a mode that makes one misbehave.
extension BitcoinRPCMethods {
    static func hubPkarr(_ relays: [PkarrRelayService]) -> [RPCMethod] {
        [
            RPCMethod("hub_pkarr_relays",
                      summary: "Lists the hub's pkarr relays: url, mode, keys stored and what each was asked.",
                      result: "[{...}]    (json array) index, url, mode, keys, gets, gets_found, puts, puts_stored, puts_refused",
                      examples: [.cli(""), .rpc("")]) { _ in
                .array(relays.enumerated().map { relayJSON($0.offset, $0.element) })
            },
            RPCMethod("hub_pkarr_relay",
                      summary: "Sets how one pkarr relay behaves: honest; stale (serves the packet a key had before its "
                          + "newest); forged (serves the newest with changed records, a later timestamp and the old "
                          + "signature); down (its port closed; any other mode opens it again).",
                      arguments: [RPCArgument("index", .number, "The relay, from 0 (hub_pkarr_relays)"),
                                  RPCArgument("mode", .string, "honest, stale, forged or down")],
                      result: "{...}    (json object) the relay as hub_pkarr_relays lists it",
                      examples: [.cli("0 \"down\""), .rpc("0, \"down\"")]) { params in
                let index = try params.int(0, default: -1)
                guard relays.indices.contains(index) else {
                    throw RPCError.invalidParameter("index must be 0...\(relays.count - 1) (the hub runs \(relays.count) relays)")
                }
                guard let mode = PkarrRelay.Mode(rawValue: params.string(1) ?? "") else {
                    throw RPCError.invalidParameter("mode must be one of "
                        + PkarrRelay.Mode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                do {
                    try await relays[index].setMode(mode)
                } catch {
                    throw RPCError(code: -1, message: "relay \(index) could not listen again: \(error)")
                }
                return relayJSON(index, relays[index])
            },
        ]
    }

    private static func relayJSON(_ index: Int, _ service: PkarrRelayService) -> OrderedJSON {
        let counters = service.relay.counters
        var object = OrderedJSONObject()
        object.add("index", .int(index))
        object.add("url", .string(service.url))
        object.add("mode", .string(service.relay.mode.rawValue))
        object.add("keys", .int(service.relay.storedKeys))
        object.add("gets", .int(counters.gets))
        object.add("gets_found", .int(counters.getsFound))
        object.add("puts", .int(counters.puts))
        object.add("puts_stored", .int(counters.putsStored))
        object.add("puts_refused", .int(counters.putsRefused))
        return object.json
    }
}
