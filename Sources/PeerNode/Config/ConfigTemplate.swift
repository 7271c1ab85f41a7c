import Bitcoin

/// The commented config file `peernode init` writes: every key of the table, commented
/// out at its default, with `network` set. Uncommenting a line and editing its value is
/// all a user does; the keys that have no default (the backends' credentials) say so.
public enum ConfigTemplate {
    public static func text(network: Network) -> String {
        var lines = [
            "# peernode configuration (bitcoin.conf style: key=value; '#' starts a comment).",
            "# Every key can also be given on the command line as --key=value, which wins.",
            "# Unknown keys and bad values stop the node with a message naming the key.",
            "",
            "network=\(network.rawValue)",
            "",
        ]
        for key in ConfigKey.all where key.name != "network" && key.name != "datadir" {
            lines.append("# \(key.summary)")
            lines.append("# allowed: \(key.allowed)")
            let example = key.defaultValue.isEmpty ? placeholder(for: key.name) : value(of: key.defaultValue, on: network)
            lines.append("#\(key.name)=\(example)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The value a default describes, as the file takes it: the default table says
    /// "8332 mainnet, 18332 testnet, ..." or "50000 (5 %)", and uncommenting the line must
    /// give a value that starts the node (issue 14).
    static func value(of described: String, on network: Network) -> String {
        let parts = described.split(separator: ",").map { $0.trimmingPrefix(" ") }
        var chosen = parts.first.map(String.init) ?? described
        if parts.count > 1 {
            let mine = parts.first { $0.hasSuffix(" " + network.rawValue) } ?? parts.first { $0.hasSuffix(" elsewhere") }
            if let mine { chosen = String(mine) }
        }
        // The value is the first word; what follows (a network, a unit, a note) is description.
        return String(chosen.prefix { $0 != " " })
    }

    /// What to write for keys with no default: a hint of the form the value takes.
    private static func placeholder(for name: String) -> String {
        switch name {
        case "bitcoind_rpc_user": return "<user>"
        case "bitcoind_rpc_password": return "<password>"
        case "bitcoind_rpc_cookie": return "/home/<you>/.bitcoin/.cookie"
        case "lnd_tls_cert": return "/home/<you>/.lnd/tls.cert"
        case "lnd_macaroon": return "/home/<you>/.lnd/data/chain/bitcoin/mainnet/admin.macaroon"
        case "extra_provider": return "<pubky>@host:port"
        case "status_listen": return "127.0.0.1:9738"
        case "electrum_server": return "<host>:50002"
        case "electrum_tls_cert": return "/home/<you>/electrum-server.crt"
        case "pkarr_relay": return "http://<relay host>:<port>"
        case "pkarr_address": return "192.0.2.7"
        default: return ""
        }
    }
}
