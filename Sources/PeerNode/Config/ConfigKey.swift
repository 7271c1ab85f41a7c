/// Every configuration key, documented in one table: `peernode help config` prints it,
/// `peernode init` writes it as the commented default file, and the resolver refuses any
/// key not in it. Defaults that differ by network say so.
public struct ConfigKey: Sendable, Equatable {
    public let name: String
    /// What it sets, in one line.
    public let summary: String
    /// The default as the user would write it ("" when the key is required or unset).
    public let defaultValue: String
    /// What values are accepted.
    public let allowed: String
    /// May be given more than once (each adds an item).
    public let repeatable: Bool

    init(_ name: String, _ summary: String, default defaultValue: String, allowed: String, repeatable: Bool = false) {
        self.name = name
        self.summary = summary
        self.defaultValue = defaultValue
        self.allowed = allowed
        self.repeatable = repeatable
    }

    public static let all: [ConfigKey] = [
        ConfigKey("network", "the Bitcoin network this node runs on",
                  default: "mainnet", allowed: "mainnet, testnet, signet, regtest"),
        ConfigKey("datadir", "the data directory (seed, store, this file); command line only",
                  default: "~/.peernode", allowed: "a directory path, given as --datadir"),
        ConfigKey("listen", "where peers connect (host:port; port 0 picks a free one)",
                  default: "127.0.0.1:9737", allowed: "host:port, IPv6 as [addr]:port, port 0 to 65535"),
        ConfigKey("control_socket", "the unix socket the peernode commands talk to (mode 0600)",
                  default: "<datadir>/peernode.sock", allowed: "a path of at most 107 bytes; relative to the datadir"),
        ConfigKey("chain_backend", "where the node reads the chain: Bitcoin Core's RPC, or an Electrum server",
                  default: "bitcoind", allowed: "bitcoind or electrum (then electrum_server; the bitcoind_rpc_* keys are unused)"),
        ConfigKey("electrum_server", "chain_backend=electrum: the Electrum server (ElectrumX, Fulcrum, Electrs; protocol 1.4+)",
                  default: "", allowed: "host:port, IPv6 as [addr]:port; required with chain_backend=electrum"),
        ConfigKey("electrum_tls", "speak TLS to the Electrum server (0: plain TCP)",
                  default: "1", allowed: "0 or 1 (1 needs electrum_tls_cert)"),
        ConfigKey("electrum_tls_cert", "the certificate the Electrum server is trusted with (its own, pinned, or its CA), read at every connection",
                  default: "", allowed: "a PEM file path; relative to the datadir; required unless electrum_tls=0"),
        ConfigKey("electrum_trusted", "the Electrum server is the operator's own (follows its own node): zero-conf claims may rely on it",
                  default: "0", allowed: "0 or 1 (1 only over TLS or to a loopback host); 0 waits for confirmations"),
        ConfigKey("bitcoind_rpc_host", "Bitcoin Core's JSON-RPC host",
                  default: "127.0.0.1", allowed: "a host name or IP address"),
        ConfigKey("bitcoind_rpc_port", "Bitcoin Core's JSON-RPC port",
                  default: "8332 mainnet, 18332 testnet, 38332 signet, 18443 regtest", allowed: "1 to 65535"),
        ConfigKey("bitcoind_rpc_user", "RPC user (with bitcoind_rpc_password)",
                  default: "", allowed: "any text without spaces; or use bitcoind_rpc_cookie"),
        ConfigKey("bitcoind_rpc_password", "RPC password (with bitcoind_rpc_user)",
                  default: "", allowed: "any text without spaces"),
        ConfigKey("bitcoind_rpc_cookie", "Bitcoin Core's .cookie file, instead of user and password",
                  default: "", allowed: "a file path; relative to the datadir"),
        ConfigKey("lnd_rest_host", "LND's REST host (the host name or IP its tls.cert names)",
                  default: "127.0.0.1", allowed: "a host name or IP address"),
        ConfigKey("lnd_rest_port", "LND's REST port (restlisten)",
                  default: "8080", allowed: "1 to 65535"),
        ConfigKey("lnd_tls_cert", "LND's tls.cert: the only certificate its REST port is trusted with, read at every connection",
                  default: "", allowed: "a file path; relative to the datadir; required unless lnd_rest_tls=0"),
        ConfigKey("lnd_rest_tls", "speak TLS to LND's REST port (0: plain HTTP, loopback hosts only)",
                  default: "1", allowed: "0 or 1 (0 only with a loopback lnd_rest_host)"),
        ConfigKey("lnd_macaroon", "LND macaroon file (admin.macaroon, or one with the permissions `peernode doctor` checks)",
                  default: "", allowed: "a file path; relative to the datadir; required"),
        ConfigKey("accept_onchain", "take on-chain payments: answer a peer's EndpointsRequest with an address of this node's wallet (0: a node paid on Lightning only)",
                  default: "1", allowed: "0 or 1"),
        ConfigKey("accept_lightning", "take Lightning payments from saved contacts: answer their InvoiceRequests with an invoice of this node's LND",
                  default: "1", allowed: "0 or 1"),
        ConfigKey("lightning_receive_min_sat", "smallest invoice a contact may ask for (accept_lightning)",
                  default: "1", allowed: "1 to lightning_receive_max_sat"),
        ConfigKey("lightning_receive_max_sat", "largest invoice a contact may ask for (accept_lightning)",
                  default: "1000000", allowed: "lightning_receive_min_sat to 2100000000000000"),
        ConfigKey("lightning_receive_expiry_seconds", "how long an invoice made for a contact stays payable (accept_lightning); a payer paying from savings through a provider needs it to outlast the lock's confirmations at 10-minute blocks plus 30 minutes",
                  default: "3600", allowed: "120 to 86400"),
        ConfigKey("provider", "run a swap provider: answer offers and quotes, lock and earn fees",
                  default: "0", allowed: "0 or 1"),
        ConfigKey("base_fee_sat", "provider: fixed part of the service fee",
                  default: "500", allowed: "0 to 1000000"),
        ConfigKey("fee_ppm", "provider: proportional part of the service fee, parts per million",
                  default: "2000", allowed: "0 to 1000000"),
        ConfigKey("min_amount_sat", "provider: smallest swap (raised to the refund at fee_cap_sat_vb plus dust)",
                  default: "10000", allowed: "1000 to max_amount_sat"),
        ConfigKey("max_amount_sat", "provider: largest swap",
                  default: "1000000", allowed: "min_amount_sat to 2100000000000000"),
        ConfigKey("provider_contacts_only", "provider: answer offers, quotes and swaps of saved contacts only",
                  default: "0", allowed: "0 or 1"),
        ConfigKey("quote_lifetime_seconds", "provider: how long a quote may be committed (single use)",
                  default: "300", allowed: "5 to 3600"),
        ConfigKey("htlc_timeout_blocks", "blocks until a provider may refund its lock",
                  default: "144", allowed: "confirmations + 36 to 1008"),
        ConfigKey("confirmations", "provider: confirmations its lock needs before the client claims (quoted in offers)",
                  default: "2 mainnet, 1 elsewhere", allowed: "1 to 100 (under 2 on mainnet needs --allow-unsafe)"),
        ConfigKey("musig2", "cooperative MuSig2 key-path spends: a provider lists `musig2` in its offers, co-signs its reverse clients' claims, asks its submarine clients to co-sign its claims and co-signs their refunds when it cannot pay; a client asks, and co-signs for, providers that list it (a refusal or silence: the script path, X exact)",
                  default: "1", allowed: "0 or 1"),
        ConfigKey("submarine", "provider: also run onchain_to_ln (submarine) swaps: pay clients' invoices from this node's LND once their lock confirms, then claim it (LND must allow paying: `peernode doctor`)",
                  default: "0", allowed: "0 or 1 (1 needs provider=1)"),
        ConfigKey("submarine_min_sat", "provider, submarine: smallest invoice it pays",
                  default: "10000", allowed: "1000 to submarine_max_sat"),
        ConfigKey("submarine_max_sat", "provider, submarine: largest invoice it pays (offers never list more than LND can send now)",
                  default: "1000000", allowed: "submarine_min_sat to 2100000000000000"),
        ConfigKey("submarine_base_fee_sat", "provider, submarine: fixed part of the service fee",
                  default: "500", allowed: "0 to 1000000"),
        ConfigKey("submarine_fee_ppm", "provider, submarine: proportional part of the service fee, parts per million",
                  default: "2000", allowed: "0 to 1000000"),
        ConfigKey("submarine_confirmations", "provider, submarine: confirmations the client's lock needs before the invoice is paid",
                  default: "2 mainnet, 1 elsewhere", allowed: "1 to 100 (never 0: a replaceable lock could be double-spent after the payment; under 2 on mainnet needs --allow-unsafe)"),
        ConfigKey("submarine_timeout_blocks", "provider, submarine: blocks until the client may refund its lock",
                  default: "288", allowed: "submarine_confirmations + submarine_route_cltv_blocks + 45 to 1008"),
        ConfigKey("submarine_route_cltv_blocks", "provider, submarine: CLTV blocks the route's hops may add to an invoice's final delta, kept free at SwapRequest (docs/HTLC.md)",
                  default: "160 (two hops at LND's 80)", allowed: "0 (payees are direct peers) to 1008"),
        ConfigKey("client_min_confirmations", "client: fewest lock confirmations before claiming, whatever the provider quotes",
                  default: "2 mainnet, 1 elsewhere", allowed: "1 to 100 (under 2 on mainnet needs --allow-unsafe); zero_conf may claim earlier"),
        ConfigKey("client_finality_confirmations", "client: claim confirmations before a swap is final (watched and rebroadcast until then)",
                  default: "6 mainnet, 1 elsewhere", allowed: "1 to 100"),
        ConfigKey("zero_conf", "claim from an unconfirmed lock (up to max_zero_conf_sat)",
                  default: "0 mainnet, 1 elsewhere", allowed: "0 or 1"),
        ConfigKey("max_zero_conf_sat", "largest swap claimed with zero confirmations",
                  default: "100000", allowed: "0 to 2100000000000000 (over 100000 on mainnet needs --allow-unsafe)"),
        ConfigKey("max_fee_ppm", "client: the most a provider may charge (service fee + its on-chain fee), ppm of the amount",
                  default: "50000 (5 %)", allowed: "0 to 1000000"),
        ConfigKey("fee_floor_sat_vb", "lowest fee rate ever used, sat/vB",
                  default: "5 mainnet, 1 elsewhere", allowed: "0.1 to 10000, up to 3 decimals (under 5 on mainnet needs --allow-unsafe)"),
        ConfigKey("fee_cap_sat_vb", "highest fee rate estimated, sat/vB; a provider's smallest swap is its refund at this rate plus dust",
                  default: "100", allowed: "fee_floor_sat_vb to 10000"),
        ConfigKey("fee_fallback_sat_vb", "fee rate when Bitcoin Core has no estimate, sat/vB",
                  default: "10", allowed: "fee_floor_sat_vb to fee_cap_sat_vb"),
        ConfigKey("extra_provider", "a provider to probe besides the contacts (testing)",
                  default: "", allowed: "<pubky>@host:port; repeat for more", repeatable: true),
        ConfigKey("wallet_sync_seconds", "how often the wallet follows the chain",
                  default: "10", allowed: "1 to 3600"),
        ConfigKey("peer_connections_per_host", "inbound peer connections one IP address may hold (its /24 or /64 twice that, handshakes half)",
                  default: "16", allowed: "1 to 1024"),
        ConfigKey("log_peer_events", "log peer connections: refused for a full budget, evicted, failed handshakes, protocol errors",
                  default: "0", allowed: "0 or 1"),
        ConfigKey("pkarr_relay", "a pkarr relay: the node publishes its endpoints (and, as a provider, its capability descriptor) there and resolves contacts added by pubky alone",
                  default: "", allowed: "http://host:port[/path]; repeat for more (none: no publishing, contacts need host:port)", repeatable: true),
        ConfigKey("pkarr_address", "an IP address published as this node's (with pkarr_relay); unset: the listen host, when it is an IP contacts can dial",
                  default: "", allowed: "an IPv4 or IPv6 literal; repeat for more", repeatable: true),
        ConfigKey("pkarr_ttl_seconds", "the TTL of the published records; the packet is republished at half of it, and at once when it changes",
                  default: "300", allowed: "10 to 86400"),
        ConfigKey("private_discovery", "never probe a contact that publishes no capability descriptor: providers are ranked from their descriptors only, and only the chosen one is asked for a quote",
                  default: "0", allowed: "0 or 1 (1 needs pkarr_relay)"),
        ConfigKey("discovery_interval_seconds", "how often every contact's pkarr packet (endpoints, capability descriptor) is read again, all contacts at once, spread over the relays",
                  default: "300", allowed: "1 to 86400"),
        ConfigKey("status_listen", "serve the read-only status API, /metrics and the dashboard here (bearer token in <datadir>/status.token)",
                  default: "", allowed: "host:port (port 0 picks a free one); a loopback host unless you mean to expose it (start-up warns)"),
    ]

    public static let names: [String] = all.map(\.name)

    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }

    /// The table as text, for `peernode help config` and the README.
    public static var table: String {
        let width = all.map(\.name.count).max() ?? 0
        var lines = ["Configuration keys (peernode.conf: key=value; command line: --key=value):", ""]
        for key in all {
            let padded = key.name + String(repeating: " ", count: width - key.name.count)
            lines.append("  \(padded)  \(key.summary)")
            let indent = String(repeating: " ", count: width + 4)
            lines.append("\(indent)default: \(key.defaultValue.isEmpty ? "(none)" : key.defaultValue)")
            lines.append("\(indent)allowed: \(key.allowed)")
        }
        return lines.joined(separator: "\n")
    }
}
