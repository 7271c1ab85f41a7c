/// Every reason a BOLT11 invoice is refused, by the decoder or the encoder.
///
/// A closed set driven by the BOLT: each case is one rule. Messages say what is wrong and
/// what the user can do; they quote at most a tag letter, a number or a short prefix,
/// never the invoice itself (it is long, and a payee chose its bytes).
public enum BOLT11Error: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: bech32 envelope

    /// The string is not bech32 at all: a character outside bech32's alphabet, a space,
    /// a missing or misplaced `1` separator, or too long to be an invoice.
    case malformedBech32(String)
    /// Upper and lower case are mixed (BIP173 allows one or the other).
    case mixedCase
    /// The checksum does not match: the string was mistyped or truncated.
    case badChecksum

    // MARK: human-readable part

    /// The prefix is not `ln` followed by a currency this decoder knows.
    case unknownCurrency(prefix: String)
    /// The amount is not a positive decimal integer without leading zeros.
    case invalidAmount(String)
    /// The amount ends in a letter other than the multipliers m, u, n and p.
    case invalidMultiplier(Character)
    /// A `p` (pico-bitcoin) amount not a multiple of 10: it would name a fraction of a
    /// millisatoshi, which no Lightning payment can carry.
    case subMillisatoshiAmount
    /// More bitcoin than will ever exist, or a number too large to hold.
    case amountTooLarge

    // MARK: data part

    /// The data part cannot hold a timestamp and a signature.
    case tooShort
    /// A tagged field claims more data than the invoice holds.
    case truncatedField(tag: Character)
    /// A field of a known type whose content cannot be read (bad UTF-8, a bad key in a
    /// route hint, a number too large).
    case malformedField(tag: Character, reason: String)
    /// No usable payment hash (`p`, 52 characters).
    case missingPaymentHash
    /// No usable payment secret (`s`, 52 characters), which the BOLT now requires.
    case missingPaymentSecret
    /// Neither a description (`d`) nor a description hash (`h`).
    case missingDescription
    /// Both a description and a description hash: a writer must use exactly one.
    case conflictingDescription
    /// An even (required) feature bit this implementation does not know.
    case unknownRequiredFeature(bit: Int)
    /// A known feature is set without a feature it depends on (BOLT 9).
    case missingFeatureDependency(feature: Int, requires: Int)

    // MARK: signature

    /// The byte after r || s is not a recovery id 0...3.
    case invalidRecoveryID(UInt8)
    /// r or s is not below the curve order.
    case malformedSignature
    /// No public key can be recovered from the signature with its recovery id.
    case signatureNotRecoverable
    /// The invoice names its payee (`n`) and the signature is high-S; with `n` the BOLT
    /// requires the canonical low-S form.
    case nonCanonicalSignature
    /// The signature does not verify for the payee named in `n`.
    case signatureMismatch

    // MARK: encoding and amounts

    /// A value given to the encoder cannot be written (too long for a field, out of range).
    case unencodable(String)
    /// The amount is not a whole number of satoshis, so it cannot be paid on chain.
    case subSatoshiAmount(msat: UInt64)

    public var description: String {
        switch self {
        case .malformedBech32(let why):
            return "not a Lightning invoice: \(why)"
        case .mixedCase:
            return "invoice mixes upper and lower case; copy it again exactly as given"
        case .badChecksum:
            return "invoice checksum does not match: it was mistyped or cut short, copy it again"
        case .unknownCurrency(let prefix):
            return "invoice prefix '\(prefix)' is not lnbc, lntb, lntbs or lnbcrt: it is for a network this node does not use"
        case .invalidAmount(let why):
            return "invoice amount is malformed: \(why)"
        case .invalidMultiplier(let letter):
            return "invoice amount multiplier '\(letter)' is not m, u, n or p"
        case .subMillisatoshiAmount:
            return "invoice amount is a fraction of a millisatoshi (a 'p' amount must end in 0)"
        case .amountTooLarge:
            return "invoice amount is larger than 21 million bitcoin"
        case .tooShort:
            return "invoice is too short to hold a timestamp and a signature"
        case .truncatedField(let tag):
            return "invoice field '\(tag)' runs past the end of the invoice"
        case .malformedField(let tag, let reason):
            return "invoice field '\(tag)' is malformed: \(reason)"
        case .missingPaymentHash:
            return "invoice has no payment hash; ask the payee for a new invoice"
        case .missingPaymentSecret:
            return "invoice has no payment secret, which is required; ask the payee for a new invoice"
        case .missingDescription:
            return "invoice has neither a description nor a description hash"
        case .conflictingDescription:
            return "invoice has both a description and a description hash; a valid invoice has exactly one"
        case .unknownRequiredFeature(let bit):
            return "invoice requires feature bit \(bit), which this node does not support"
        case .missingFeatureDependency(let feature, let requires):
            return "invoice sets feature bit \(feature) without feature \(requires), which it depends on"
        case .invalidRecoveryID(let id):
            return "invoice signature recovery id is \(id), it must be 0 to 3"
        case .malformedSignature:
            return "invoice signature is malformed (r or s out of range)"
        case .signatureNotRecoverable:
            return "invoice signature does not yield a public key: the invoice was altered or is corrupt"
        case .nonCanonicalSignature:
            return "invoice names its payee but its signature is not in canonical low-S form"
        case .signatureMismatch:
            return "invoice signature does not match the payee it names: the invoice was altered"
        case .unencodable(let why):
            return "cannot encode invoice: \(why)"
        case .subSatoshiAmount(let msat):
            return "amount \(msat) msat is not a whole number of satoshis, so it cannot be paid on chain"
        }
    }
}
