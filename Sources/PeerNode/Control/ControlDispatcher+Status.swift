import Transport

extension ControlDispatcher {
    /// The node at a glance. A backend that fails now is reported in place (`*_error`)
    /// rather than failing the whole command: status is what one runs to find out why.
    func status() async -> JSONValue {
        var result: [String: JSONValue] = [
            "network": .string(services.config.network.rawValue),
            "pubky": .string(services.publicPubky.z32),
            "node_pubky": .string(services.identity.pubky.z32),
            "listen": .string(listenAddress),
            "control_socket": .string(services.config.controlSocket),
            "provider": .bool(services.config.provider.enabled),
            "peers": .integer(await services.peerServer.connectionCount),
            // Since the start: a contact private discovery left alone shows no new connection.
            "peer_counters": .object(["accepted": .integer(await services.peerServer.counters.accepted),
                                      "handshakes_failed": .integer(await services.peerServer.counters.handshakesFailed)]),
            "engines": .object(["provider": .bool(engines.current.provider != nil),
                                "client": .bool(engines.current.client != nil)]),
        ]
        do {
            let tip = try await services.chain.tip()
            result["tip_height"] = .integer(tip.height)
            result["tip_hash"] = .string(tip.hash.hex)
        } catch {
            result["tip_height"] = .null
            result["chain_error"] = .string(error.description)
        }
        let balance = await services.wallet.balance()
        result["wallet"] = Self.json(balance)
        if let synced = await services.wallet.syncedTip { result["wallet_synced_height"] = .integer(synced.height) }
        do {
            let msat = try await services.lightning.channelBalance()
            result["lightning"] = .object(["balance_sat": .integer(msat / 1_000), "balance_msat": .integer(msat)])
        } catch {
            result["lightning"] = .null
            result["lightning_error"] = .string(error.description)
        }
        if let pkarr = services.pkarr {
            var published: JSONValue = .null
            if let publisher = pkarr.publisher, let packet = await publisher.packet {
                published = .object([
                    "timestamp_us": .integer(Int64(clamping: packet.timestamp)), "bytes": .integer(packet.encodedPacket.count),
                    "relays": .array(await publisher.lastOutcomes.map { .object(["relay": .string($0.relay), "result": .string($0.result)]) }),
                ])
            }
            let last = await pkarr.sweep.last
            let directory = await pkarr.directory.counters
            result["pkarr"] = .object(["relays": .array(pkarr.settings.relays.map { .string($0.description) }),
                                       "private_discovery": .bool(pkarr.settings.privateDiscovery),
                                       "published": published,
                                       "discovery": .object(["rounds": .integer(await pkarr.sweep.rounds),
                                                             "contacts": .integer(last.contacts),
                                                             "resolved": .integer(last.resolved),
                                                             "with_descriptor": .integer(last.withDescriptor),
                                                             "lookups": .integer(directory.lookups),
                                                             "answers_refused": .integer(directory.answersRefused),
                                                             "older_ignored": .integer(directory.olderIgnored)])])
        }
        return .object(result)
    }

    static func json(_ balance: WalletBalance) -> JSONValue {
        .object(["confirmed_sat": .integer(balance.confirmed), "unconfirmed_sat": .integer(balance.unconfirmed),
                 "immature_sat": .integer(balance.immature), "total_sat": .integer(balance.total)])
    }
}
