import Bitcoin

/// The hub's Lightning control methods, on the same JSON-RPC endpoint as Core's methods:
/// add nodes (each with its own LND REST server), set their balances, take them offline
/// and back, list them, and report every balance, chain and Lightning, in `hub_balances`.
/// Amounts given are whole satoshis; the Lightning side reports millisatoshis.
extension BitcoinRPCMethods {
    /// The method table of a hub with Lightning: everything in `all(_:)`, `hub_balances`
    /// extended with the Lightning side, and the `hub_ln_*` methods. The Lightning network
    /// hears of tip changes from the chain itself, so a caller that mined or reorganised
    /// sees held HTLCs cancelled before its reply arrives.
    public static func all(_ hub: HubChain, lightning: HubLightning) -> [RPCMethod] {
        all(hub).filter { $0.name != "hub_balances" } + lightningControl(hub, lightning) + lightningHoldControl(lightning)
    }

    static func lightningControl(_ hub: HubChain, _ lightning: HubLightning) -> [RPCMethod] {
        [
            RPCMethod("hub_ln_addnode",
                      summary: "Creates a Lightning node funded with balance_sat and starts its LND REST server "
                          + "on a free loopback port with a fresh root key and LND's admin, invoice and readonly macaroons, "
                          + "over TLS with a fresh tls.cert (unless the hub serves plain HTTP, or plain_http is true).",
                      arguments: [RPCArgument("name", .string, "The node's name (also its alias)"),
                                  RPCArgument("balance_sat", .number, default: "0", "Its spendable balance in satoshis"),
                                  RPCArgument("plain_http", .bool, default: "false",
                                              "Serve this node's REST in plain HTTP (LND's no-rest-tls)")],
                      result: "{...}    (json object) name, alias, identity_pubkey, rest_url, rest_host, rest_port, "
                          + "macaroon_hex (admin), macaroons (file paths by kind), tls_cert_path and tls_cert_sha256 "
                          + "(null in plain HTTP), balance_sat, balance_msat, online",
                      examples: [.cli("\"alice\" 500000"), .rpc("\"alice\", 500000")]) { params in
                let name = params.string(0) ?? ""
                let balance = try params.int(1, default: 0)
                let plain = params.bool(2, default: false)
                do {
                    return try await lightning.addNode(name: name, balanceSat: Int64(balance), plainHTTP: plain).json
                } catch {
                    throw lightningError(error)
                }
            },
            RPCMethod("hub_ln_setbalance",
                      summary: "Sets a Lightning node's balance: its channel becomes one of that capacity, "
                          + "keeping LND's default reserve (1%, at least 354 sat) that it cannot send; "
                          + "the change counts as funding (or withdrawal) in hub_balances.",
                      arguments: [RPCArgument("name", .string, "The node's name"),
                                  RPCArgument("balance_sat", .number, "The new balance in satoshis")],
                      result: "{...}    (json object) the node, as hub_ln_addnode answers",
                      examples: [.cli("\"alice\" 250000"), .rpc("\"alice\", 250000")]) { params in
                let name = params.string(0) ?? ""
                let balance = try params.int(1, default: 0)
                do {
                    return try lightning.setBalance(node: name, balanceSat: Int64(balance)).json
                } catch {
                    throw lightningError(error)
                }
            },
            RPCMethod("hub_ln_setonline",
                      summary: "Takes a Lightning node offline (it neither sends nor receives payments; its REST "
                          + "endpoint still answers) or back online.",
                      arguments: [RPCArgument("name", .string, "The node's name"),
                                  RPCArgument("online", .bool, "false: offline, true: back online")],
                      result: "{...}    (json object) the node, as hub_ln_addnode answers",
                      examples: [.cli("\"bob\" false"), .rpc("\"bob\", false")]) { params in
                let name = params.string(0) ?? ""
                do {
                    return try lightning.setOnline(node: name, params.bool(1, default: true)).json
                } catch {
                    throw lightningError(error)
                }
            },
            RPCMethod("hub_ln_fault",
                      summary: "Injects into a node's LND REST server a fault real LND causes: send_stream_error (the "
                          + "next /v2/router/send stream carries LND's 'routerrpc server shutting down' error line after "
                          + "its first update and ends; the payment goes on), send_stream_silent (the next such stream "
                          + "says nothing after its first update and stays open, as a connection whose far end "
                          + "vanished; the payment goes on), send_error_after_start (the next send registers its payment, "
                          + "which goes on, and is answered with that error, HTTP 500, instead of a stream), "
                          + "restart (every open stream gets that line "
                          + "and ends; invoices and payments stay), silent_unknown_invoice (a subscription to an unknown "
                          + "invoice stays open and silent, as in LND), clear (lifts the standing ones).",
                      arguments: [RPCArgument("name", .string, "The node's name"),
                                  RPCArgument("fault", .string,
                                              "send_stream_error, send_stream_silent, send_error_after_start, restart, silent_unknown_invoice or clear")],
                      result: "{...}    (json object) name, fault, send_stream_errors_armed_before (not yet used), "
                          + "send_requests (every /v2/router/send the node had, refused ones included), "
                          + "send_requests_by_hash (payment hash in hex -> its sends), open_streams (after the fault)",
                      examples: [.cli("\"alice\" \"send_stream_error\""), .rpc("\"alice\", \"restart\"")]) { params in
                let name = params.string(0) ?? ""
                let text = params.string(1) ?? ""
                guard let fault = LNDFault(rawValue: text) else {
                    throw RPCError.invalidParameter("unknown fault \"\(text)\"; expected one of "
                                                    + LNDFault.allCases.map(\.rawValue).joined(separator: ", "))
                }
                let faults: LNDFaults
                do {
                    faults = try lightning.faults(node: name)
                } catch {
                    throw lightningError(error)
                }
                let armedBefore = faults.sendStreamErrorsArmed
                faults.inject(fault)
                var result = OrderedJSONObject()
                result.add("name", .string(name))
                result.add("fault", .string(fault.rawValue))
                result.add("send_stream_errors_armed_before", .int(armedBefore))
                result.add("send_requests", .int(faults.sendRequests))
                var byHash = OrderedJSONObject()
                for (hash, count) in faults.sendRequestsByHash.sorted(by: { $0.key < $1.key }) { byHash.add(hash, .int(count)) }
                result.add("send_requests_by_hash", byHash.json)
                result.add("open_streams", .int(faults.openStreams))
                return result.json
            },
            RPCMethod("hub_ln_nodes",
                      summary: "Lists every Lightning node by name, as the start-up JSON lists them under \"lightning\".",
                      result: "{...}    (json object) name -> the node, as hub_ln_addnode answers",
                      examples: [.cli(""), .rpc("")]) { _ in
                lightningNodesJSON(lightning)
            },
            RPCMethod("hub_balances",
                      summary: "Reports every balance for conservation checks: on the chain, unspent outputs of the "
                          + "active chain by address, their total, the hub's own spendable coins and the mempool; "
                          + "on Lightning, each node's balance, the HTLCs in flight, the routing fees collected "
                          + "and the net funding (all in msat), and whether they add up.",
                      result: "{...}    (json object)", examples: [.cli(""), .rpc("")]) { _ in
                var result = OrderedJSONObject()
                result.add(contentsOf: balancesJSON(hub))
                result.add("lightning", lightningBalancesJSON(lightning.network.balances()))
                return result.json
            },
        ]
    }

    /// Every node with a REST server, by name in name order.
    static func lightningNodesJSON(_ lightning: HubLightning) -> OrderedJSON {
        .object(lightning.endpoints.map { OrderedJSON.Member($0.name, $0.json) })
    }

    static func lightningBalancesJSON(_ balances: LightningBalances) -> OrderedJSON {
        .object([
            "nodes": .object(balances.nodes.keys.sorted().map { OrderedJSON.Member($0, .int(balances.nodes[$0]!)) }),
            "in_flight_msat": .int(balances.inFlightMsat),
            "fees_collected_msat": .int(balances.feesCollectedMsat),
            "total_msat": .int(balances.totalMsat),
            "funded_msat": .int(balances.fundedMsat),
            "conserved": .bool(balances.isConserved),
        ])
    }

    /// A missing node is -5 (Core's "not found"), a bad name or amount -8 (invalid
    /// parameter), anything else -1 with the hub's explanation.
    static func lightningError(_ error: any Error) -> RPCError {
        if let error = error as? RPCError { return error }
        if let error = error as? LightningSimError {
            switch error {
            case .unknownNode: return .invalidAddressOrKey(error.description)
            case .duplicateNode, .amountTooLarge: return .invalidParameter(error.description)
            default: return .misc(error.description)
            }
        }
        if let error = error as? HubLightningError {
            switch error {
            case .invalidName, .unsafeName, .invalidAmount: return .invalidParameter(error.description)
            case .noServer: return .invalidAddressOrKey(error.description)
            case .serverFailed, .stopped: return .misc(error.description)
            }
        }
        return .misc("\(error)")
    }
}
