import Bitcoin

/// The chain an invoice is payable on, named by the invoice prefix: `ln` + the BIP173
/// segwit prefix of that chain (BOLT11 "Human-Readable Part").
public enum InvoiceCurrency: String, Sendable, Hashable, CaseIterable {
    case bitcoin = "lnbc"
    case testnet = "lntb"
    case signet = "lntbs"
    case regtest = "lnbcrt"

    /// The invoice prefix (`lnbc`, `lntb`, `lntbs`, `lnbcrt`).
    public var prefix: String { rawValue }

    /// The network whose addresses the invoice's fallback fields are written for.
    public var network: Network {
        switch self {
        case .bitcoin: return .mainnet
        case .testnet: return .testnet
        case .signet: return .signet
        case .regtest: return .regtest
        }
    }

    /// The currency of invoices paid on `network`.
    public init(network: Network) {
        switch network {
        case .mainnet: self = .bitcoin
        case .testnet: self = .testnet
        case .signet: self = .signet
        case .regtest: self = .regtest
        }
    }

    /// Splits a lowercase HRP into currency and the amount text after it. The prefixes
    /// overlap (`lnbc` begins `lnbcrt`, `lntb` begins `lntbs`) and an amount always
    /// starts with a digit, so the longest prefix followed by nothing or a digit wins.
    static func split(hrp: String) throws(BOLT11Error) -> (currency: InvoiceCurrency, amount: Substring) {
        let longestFirst = allCases.sorted { $0.rawValue.count > $1.rawValue.count }
        for currency in longestFirst where hrp.hasPrefix(currency.rawValue) {
            let rest = hrp.dropFirst(currency.rawValue.count)
            if rest.first.map({ $0.isASCII && $0.isNumber }) ?? true {
                return (currency, rest)
            }
        }
        // Only the leading letters are shown: enough to recognise the network, never the
        // rest of a string the payee chose.
        throw .unknownCurrency(prefix: String(hrp.prefix { !$0.isNumber }.prefix(12)))
    }
}
