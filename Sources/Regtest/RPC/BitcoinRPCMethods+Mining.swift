import Bitcoin

extension BitcoinRPCMethods {
    /// Core's highest fee estimation target (`HighestTargetTracked` of the long horizon).
    static let maxConfirmationTarget = 1008

    static func mining(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("generatetoaddress", summary: "Mine to a specified address and return the block hashes.",
                      arguments: [RPCArgument("nblocks", .number, "How many blocks are generated."),
                                  RPCArgument("address", .string, "The address to send the newly generated bitcoin to."),
                                  RPCArgument("maxtries", .number, default: "1000000", "How many iterations to try.")],
                      result: "[...]    (json array) hashes of blocks generated",
                      examples: [.cli("11 \"myaddress\""), .rpc("11, \"myaddress\"")]) { params in
                let count = try params.int(0, default: 0)
                guard let text = params.string(1), let address = try? Address(text, network: .regtest) else {
                    throw RPCError.invalidAddressOrKey("Error: Invalid address")
                }
                guard count > 0 else { return [] }
                do {
                    let hashes = try hub.changingMempool { try chain.mine(count, to: address.script) }
                    return .array(hashes.map { .string($0.hex) })
                } catch {
                    throw rpcError(error)
                }
            },
            RPCMethod("estimatesmartfee",
                      summary: "Estimates the approximate fee per kilobyte needed for a transaction to begin\n"
                          + "confirmation within conf_target blocks if possible and return the number of blocks\n"
                          + "for which the estimate is valid. Uses virtual transaction size as defined\n"
                          + "in BIP 141 (witness data is discounted).",
                      arguments: [RPCArgument("conf_target", .number, "Confirmation target in blocks (1 - 1008)"),
                                  RPCArgument("estimate_mode", .string, default: "\"economical\"",
                                              "The fee estimate mode.\nWhether to return a more conservative estimate which also satisfies\n"
                                                  + "a longer history. A conservative estimate potentially returns a\nhigher feerate and is more "
                                                  + "likely to be sufficient for the desired\ntarget, but is not as responsive to short term drops"
                                                  + "\nin the prevailing fee market. Must be one of (case insensitive):\n\"unset\"\n\"economical\"\n\"conservative\"")],
                      result: "{...}    (json object)",
                      examples: [.cli("6"), .rpc("6")]) { params in
                let target = try params.int(0, default: 0)
                guard (1...maxConfirmationTarget).contains(target) else {
                    throw RPCError.invalidParameter("Invalid conf_target, must be between 1 and \(maxConfirmationTarget)")
                }
                if let mode = params.string(1), !["UNSET", "ECONOMICAL", "CONSERVATIVE"].contains(mode.uppercased()) {
                    throw RPCError.invalidParameter(
                        "Invalid estimate_mode parameter, must be one of: \"unset\", \"economical\", \"conservative\"")
                }
                let estimate = chain.estimateSmartFee(target: target)
                guard let rate = estimate.feeRate else {
                    return .object(["errors": ["Insufficient data or no feerate found"], "blocks": .int(estimate.blocks)])
                }
                // Core never advises less than what its mempool relays.
                return .object(["feerate": .amount(max(rate, hub.chain.mempoolMinFeeRate)), "blocks": .int(estimate.blocks)])
            },
        ]
    }

    static func network(_ hub: HubChain) -> [RPCMethod] {
        [
            RPCMethod("getnetworkinfo", summary: "Returns an object containing various state info regarding P2P networking.",
                      result: "{...}    (json object)", examples: [.cli(""), .rpc("")]) { _ in
                // The hub answers as the Core version whose behaviour it reproduces; it has
                // no P2P side, so no connections and no local addresses.
                let networks: [OrderedJSON] = [("ipv4", false), ("ipv6", false), ("onion", true), ("i2p", true),
                                               ("cjdns", true)].map { name, limited in
                    .object(["name": .string(name), "limited": .bool(limited), "reachable": .bool(!limited),
                             "proxy": "", "proxy_randomize_credentials": false])
                }
                return .object([
                    "version": 310000, "subversion": "/Satoshi:31.0.0/", "protocolversion": 70016,
                    "localservices": "0000000000000c09",
                    "localservicesnames": ["NETWORK", "WITNESS", "NETWORK_LIMITED", "P2P_V2"],
                    "localrelay": true, "timeoffset": 0, "networkactive": true, "connections": 0,
                    "connections_in": 0, "connections_out": 0, "networks": .array(networks),
                    "relayfee": .amount(hub.policy.minRelayFeeRate),
                    "incrementalfee": .amount(hub.policy.incrementalRelayFeeRate),
                    "localaddresses": [], "warnings": [],
                ])
            },
        ]
    }
}
