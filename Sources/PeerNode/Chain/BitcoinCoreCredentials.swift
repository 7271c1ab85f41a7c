import Transport

/// How the node authenticates to Bitcoin Core's RPC: `rpcuser`/`rpcpassword` (or an
/// `rpcauth` entry's user and password), or the `.cookie` file Core writes into its data
/// directory at every start. The cookie changes at each restart, so it is read when first
/// needed and again whenever Core answers 401.
public enum BitcoinCoreCredentials: Sendable, Equatable {
    case userPassword(HTTPBasicCredentials)
    case cookieFile(path: String)

    public static func user(_ user: String, password: String) -> BitcoinCoreCredentials {
        .userPassword(HTTPBasicCredentials(user: user, password: password))
    }
}
