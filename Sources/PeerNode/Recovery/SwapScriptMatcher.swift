import Bitcoin
import HTLC

/// Recognises spends of our swap contracts from what a spend reveals: the Taproot leaf and
/// control block, or the P2WSH witness script. The database would tell us the
/// counterparty's key and the timeout; without it, these are read from the witness and the
/// parts that are ours are matched against keys derived from the seed.
///
/// Which of our keys a swap used says our side: a reverse client claims with its claim key
/// and its own preimage; a submarine provider claims with its claim key and the payee's
/// preimage; a reverse provider and a submarine client both refund with their refund key.
/// One index serves one swap, so each key of an index has one use.
///
/// - Taproot claim leaf: holds HASH160(preimage) and the claimer's key. Our claim key with
///   our own hash: reverse client; our claim key with another hash: submarine provider.
///   Otherwise the control block's internal key, KeyAgg(provider, client) in that order,
///   is tried with our refund key of each index and the revealed key (both parities, since
///   the leaf holds only its x): ours first is a reverse provider's lock, ours second a
///   submarine client's (KeyAgg is not symmetric, so the order tells them apart).
/// - Taproot refund leaf: holds the refunder's key. Ours: a lock we made (`.locker`: the
///   leaf cannot say in which direction). Otherwise the internal key with our claim key:
///   second is a reverse client's, first a submarine provider's.
/// - P2WSH: the witness script holds both full keys and the payment hash: our claim key
///   with our hash (reverse client) or another (submarine provider), or our refund key
///   (`.locker`).
struct SwapScriptMatcher {
    /// A script-path or P2WSH spend read out of an input's witness, before matching.
    struct Candidate: Sendable {
        enum Script: Sendable {
            case taprootClaim(hash160: [UInt8], claimerXOnly: [UInt8], internalKey: [UInt8])
            case taprootRefund(refunderXOnly: [UInt8], internalKey: [UInt8])
            case p2wsh(paymentHash: [UInt8], claimKey: [UInt8], refundKey: [UInt8], isClaim: Bool, sized: Bool)

            var isTaproot: Bool {
                switch self {
                case .taprootClaim, .taprootRefund: return true
                case .p2wsh: return false
                }
            }
        }

        let script: Script
        let stack: [[UInt8]]
        let lock: OutPoint
        let spendingTxid: TransactionID
        let height: Int
    }

    /// Reads the witness of `input`; nil for anything that is not one of our contract shapes.
    static func candidate(_ input: TransactionInput, in txid: TransactionID, height: Int) -> Candidate? {
        let stack = input.witness.stack
        if let script = parse(stack) {
            return Candidate(script: script, stack: stack, lock: input.previousOutput, spendingTxid: txid, height: height)
        }
        // A Taproot spend may carry an annex (BIP341: a last item starting 0x50): consensus
        // allows it, so a claim with one still counts (audit C-2).
        if stack.count >= 3, stack.last?.first == 0x50 {
            let stripped = Array(stack.dropLast())
            if let script = parse(stripped), script.isTaproot {
                return Candidate(script: script, stack: stripped, lock: input.previousOutput, spendingTxid: txid, height: height)
            }
        }
        return nil
    }

    /// The claim branch's opening bytes of each P2WSH layout: `p2wsh_v2` checks the size
    /// (`OP_IF OP_SIZE 32 OP_EQUALVERIFY OP_SHA256 <32>`), the retired `p2wsh` does not.
    private static let sizedP2WSHPrefix: [UInt8] = [0x63, 0x82, 0x01, 0x20, 0x88, 0xa8, 0x20]
    private static let unsizedP2WSHPrefix: [UInt8] = [0x63, 0xa8, 0x20]

    static func parse(_ stack: [[UInt8]]) -> Candidate.Script? {
        // Taproot script path: [..., leaf script, control block]; a control block is the leaf
        // version byte (0xc0, with the parity bit) and the 32-byte internal key, then 32-byte path steps.
        if stack.count >= 3, let control = stack.last, control.count >= 33, (control.count - 33) % 32 == 0,
           control[0] & 0xfe == 0xc0 {
            let leaf = stack[stack.count - 2]
            let internalKey = Array(control[1..<33])
            if leaf.count == 61, leaf[0..<6] == [0x82, 0x01, 0x20, 0x88, 0xa9, 0x14], leaf[26] == 0x88,
               leaf[27] == 0x20, leaf[60] == 0xac, stack.count == 4 {
                return .taprootClaim(hash160: Array(leaf[6..<26]), claimerXOnly: Array(leaf[28..<60]), internalKey: internalKey)
            }
            if leaf.count >= 36, leaf.count <= 42, leaf[0] == 0x20, leaf[33] == 0xad, leaf.last == 0xb1, stack.count == 3 {
                return .taprootRefund(refunderXOnly: Array(leaf[1..<33]), internalKey: internalKey)
            }
            return nil
        }
        // P2WSH: the last item is the witness script, either layout:
        // OP_IF [OP_SIZE 32 OP_EQUALVERIFY] OP_SHA256 <32> OP_EQUALVERIFY <33> OP_CHECKSIG
        // OP_ELSE <timeout> OP_CLTV OP_DROP <33> OP_CHECKSIG OP_ENDIF.
        guard stack.count == 3 || stack.count == 4, let script = stack.last else { return nil }
        let hashAt: Int
        if script.starts(with: sizedP2WSHPrefix) {
            hashAt = sizedP2WSHPrefix.count
        } else if script.starts(with: unsizedP2WSHPrefix) {
            hashAt = unsizedP2WSHPrefix.count
        } else {
            return nil
        }
        let keyAt = hashAt + 34
        guard script.count >= keyAt + 74, script.count <= keyAt + 79, script[hashAt + 32] == 0x88,
              script[hashAt + 33] == 0x21, script[keyAt + 33] == 0xac, script[keyAt + 34] == 0x67,
              script[script.count - 1] == 0x68, script[script.count - 2] == 0xac,
              script[script.count - 36] == 0x21, script[script.count - 37] == 0x75, script[script.count - 38] == 0xb1 else {
            return nil
        }
        // Segwit v0 demands a clean stack, so a claim is [sig, preimage, selector, script]
        // and a refund [sig, selector, script]; the selector is read as the interpreter
        // reads it (any true value takes OP_IF: MINIMALIF is only relay policy).
        let selector = stack[stack.count - 2]
        let isClaim = stack.count == 4 && ScriptBool.isTrue(selector)
        let isRefund = stack.count == 3 && !ScriptBool.isTrue(selector)
        guard isClaim || isRefund else { return nil }
        return .p2wsh(paymentHash: Array(script[hashAt..<(hashAt + 32)]), claimKey: Array(script[keyAt..<(keyAt + 33)]),
                      refundKey: Array(script[(script.count - 35)..<(script.count - 2)]), isClaim: isClaim,
                      sized: hashAt == sizedP2WSHPrefix.count)
    }

    /// Matches a candidate against our keys; nil when it is not ours.
    static func match(_ candidate: Candidate, keys: RecoveryKeyTable) -> RecoveredSpend? {
        func spend(_ index: UInt32, _ side: RecoveredSpend.Side, _ kind: RecoveredSpend.Kind, _ type: ContractType,
                   paymentHash: [UInt8]) -> RecoveredSpend? {
            var preimage: [UInt8]?
            if kind == .claim {
                // Only a value that hashes to the payment hash is a preimage worth handing on.
                guard candidate.stack.count == 4, candidate.stack[1].count == 32,
                      SHA256.hash(candidate.stack[1]) == paymentHash else { return nil }
                preimage = candidate.stack[1]
            }
            return RecoveredSpend(index: index, scheme: keys.scheme, side: side, kind: kind, contractType: type,
                                  lock: candidate.lock, spendingTxid: candidate.spendingTxid, height: candidate.height,
                                  paymentHash: paymentHash, preimage: preimage)
        }
        switch candidate.script {
        case .taprootClaim(let hash160, let claimerXOnly, let internalKey):
            // The witness's preimage gives the payment hash of any claim that is not our own
            // reverse claim (the payee's or the client's hash, not derived from our seed).
            let revealedHash: [UInt8]? = candidate.stack.count == 4
                && RIPEMD160.hash(SHA256.hash(candidate.stack[1])) == hash160 ? SHA256.hash(candidate.stack[1]) : nil
            if let index = keys.claimIndex(xOnly: claimerXOnly) {
                if keys.entry(index).hash160 == hash160 {
                    return spend(index, .client(.reverse), .claim, .taprootBoltz, paymentHash: keys.entry(index).paymentHash)
                }
                guard let revealedHash else { return nil }
                return spend(index, .provider(.submarine), .claim, .taprootBoltz, paymentHash: revealedHash)
            }
            guard let revealedHash else { return nil }
            let theirs = fullKeys(claimerXOnly)
            for entry in keys.entries {
                let ours = [entry.refundKey.compressed]
                if aggregates(provider: ours, client: theirs, to: internalKey) {
                    return spend(entry.index, .provider(.reverse), .claim, .taprootBoltz, paymentHash: revealedHash)
                }
                if aggregates(provider: theirs, client: ours, to: internalKey) {
                    return spend(entry.index, .client(.submarine), .claim, .taprootBoltz, paymentHash: revealedHash)
                }
            }
            return nil
        case .taprootRefund(let refunderXOnly, let internalKey):
            if let index = keys.refundIndex(xOnly: refunderXOnly) {
                // Our refund key alone says the lock was ours; the leaf holds no payment hash.
                return spend(index, .locker, .refund, .taprootBoltz, paymentHash: [])
            }
            let theirs = fullKeys(refunderXOnly)
            for entry in keys.entries {
                let ours = [entry.claimKey.compressed]
                if aggregates(provider: theirs, client: ours, to: internalKey) {
                    return spend(entry.index, .client(.reverse), .refund, .taprootBoltz, paymentHash: entry.paymentHash)
                }
                if aggregates(provider: ours, client: theirs, to: internalKey) {
                    return spend(entry.index, .provider(.submarine), .refund, .taprootBoltz, paymentHash: [])
                }
            }
            return nil
        case .p2wsh(let paymentHash, let claimKey, let refundKey, let isClaim, let sized):
            let kind: RecoveredSpend.Kind = isClaim ? .claim : .refund
            let type: ContractType = sized ? .p2wsh : .p2wshUnsized
            if let index = keys.claimIndex(compressed: claimKey) {
                let side: RecoveredSpend.Side = keys.entry(index).paymentHash == paymentHash
                    ? .client(.reverse) : .provider(.submarine)
                return spend(index, side, kind, type, paymentHash: paymentHash)
            }
            if let index = keys.refundIndex(compressed: refundKey) {
                return spend(index, .locker, kind, type, paymentHash: paymentHash)
            }
            return nil
        }
    }

    /// The two full keys an x-only key may stand for (a leaf drops the parity; KeyAgg uses it).
    private static func fullKeys(_ xOnly: [UInt8]) -> [[UInt8]] { [[0x02] + xOnly, [0x03] + xOnly] }

    private static func aggregates(provider: [[UInt8]], client: [[UInt8]], to internalKey: [UInt8]) -> Bool {
        for providerKey in provider {
            for clientKey in client {
                guard let providerPoint = try? PublicKey(providerKey), let clientPoint = try? PublicKey(clientKey),
                      let aggregate = try? MuSig2KeyAggregation(publicKeys: [providerPoint, clientPoint]) else { continue }
                if aggregate.xOnlyPublicKey.bytes == internalKey { return true }
            }
        }
        return false
    }
}
