/// The URL a request was posted to: Core serves `/` and `/wallet/<name>`.
struct RPCPath {
    /// The wallet named in a `/wallet/<name>` path.
    let wallet: String?

    init?(target: String) {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if path == "/" || path.isEmpty {
            wallet = nil
        } else if path.hasPrefix("/wallet/") {
            wallet = String(path.dropFirst("/wallet/".count))
        } else {
            return nil
        }
    }
}

/// The hub keeps no wallets. Core's wallet methods are recognised so that calling one
/// gives Core's "no such wallet" error rather than "Method not found".
enum WalletMethods {
    static let names: Set<String> = [
        "abandontransaction", "backupwallet", "bumpfee", "createwallet", "dumpprivkey", "encryptwallet",
        "getaddressinfo", "getbalance", "getbalances", "getnewaddress", "getrawchangeaddress",
        "getreceivedbyaddress", "gettransaction", "getwalletinfo", "importdescriptors", "listdescriptors",
        "listreceivedbyaddress", "listsinceblock", "listtransactions", "listunspent", "listwallets", "loadwallet",
        "lockunspent", "psbtbumpfee", "send", "sendall", "sendmany", "sendtoaddress", "settxfee",
        "signmessage", "signrawtransactionwithwallet", "unloadwallet", "walletcreatefundedpsbt",
        "walletprocesspsbt",
    ]

    static func error(for path: RPCPath) -> RPCError {
        if path.wallet != nil { return .walletNotFound("Requested wallet does not exist or is not loaded") }
        return .walletNotFound("No wallet is loaded. Load a wallet using loadwallet or create a new one with "
            + "createwallet. (Note: A default wallet is no longer automatically created)")
    }
}
