#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What the chain does to a swap (issue 9): the other contract type, a quote that expires
/// before it is committed, a fee estimate that jumps mid-swap, and a reorg that takes the
/// lock (and the claim) out of the chain after the client saw them.
enum ChainScenarios {
    static let amountSat: Int64 = 25_000

    static var all: [Scenario] {
        [
            Scenario(name: "pay-contact-p2wsh", summary: "pay-contact with `--contract-type p2wsh_v2`: a P2WSH lock, exact amounts",
                     quick: true, body: payContactP2WSH),
            Scenario(name: "quote-expiry", summary: "a quote committed after its lifetime: quote_expired, nothing paid; a fresh one pays",
                     quick: false, body: quoteExpiry),
            Scenario(name: "fee-jump", summary: "the fee estimate jumps fivefold between the lock and the claim; the contact still gets X",
                     quick: false, body: feeJump),
            Scenario(name: "reorg", summary: "a reorg takes out the lock's and the claim's blocks; both confirm again, X arrives once",
                     quick: false, body: reorg),
        ]
    }

    // MARK: - pay-contact-p2wsh

    static func payContactP2WSH(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let before = try net.hub.rpc.balances()
        var checks = try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat,
                                              expectProvider: providers[0], options: ["--contract-type", "p2wsh_v2"])
        // The contract the provider actually locked into, read from the chain: the claim's
        // first input spends the lock output.
        let swap = try onlySwap(providers[0], role: "provider")
        let lock = try lockOutput(net, since: before.height)
        clock.note("swap \(swap.id): lock \(lock.txid):\(lock.vout), \(lock.type)")
        checks.insert(Check("the lock is a P2WSH output", lock.type == "witness_v0_scripthash",
                            "lock \(lock.txid):\(lock.vout) scriptPubKey type \(lock.type)"), at: 0)
        return checks
    }

    // MARK: - quote-expiry

    /// The provider's quotes live `lifetime` seconds; a quote committed after that is refused.
    static let shortQuoteLifetime = 10

    static func quoteExpiry(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: ["provA": ["quote_lifetime_seconds=\(shortQuoteLifetime)"]])
        let provider = providers[0]
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total
        let quote = try clock.stage("quote \(formatSats(amountSat)) to carol (provA's quotes live \(shortQuoteLifetime) s)") {
            () throws(Failure) -> [String: Any] in
            let json = try client.must(["quote", String(amountSat), "--contact", carol.name], timeout: 60)
            clock.note(Demo.routeAndFees(json))
            clock.note("quote \(JSON.string(json["quote_id"]) ?? "?"): valid for \(JSON.int(json["valid_for_seconds"]).map(String.init) ?? "?") s, "
                       + "until unix \(JSON.int(json["valid_until_unix"]).map(String.init) ?? "?")")
            return json
        }
        guard let quoteID = JSON.string(quote["quote_id"]), let validUntil = JSON.int(quote["valid_until_unix"]) else {
            throw Failure("`quote` printed no quote_id or valid_until_unix: \(JSON.line(quote))")
        }
        let validFor = JSON.int(quote["valid_for_seconds"]) ?? -1
        try clock.stage("wait past the quote's expiry") { () throws(Failure) in
            // Expired means strictly after valid_until_unix by the provider's clock (the same machine's).
            while Int64(Date().timeIntervalSince1970) <= validUntil + 1 { usleep(200_000) }
        }
        let refused = try clock.stage("pay carol \(formatSats(amountSat)) --quote \(quoteID): must be refused") {
            () throws(Failure) -> ToolResult in
            let lines = ProgressLines()
            let result = try client.cli(["pay", carol.name, String(amountSat), "--quote", quoteID], timeout: 120) {
                if let stage = lines.fresh($0) { clock.note("… " + stage) }
            }
            clock.note("exit \(result.status): \(result.failureText)")
            return result
        }
        let text = try client.cliText(["pay", carol.name, String(amountSat), "--quote", quoteID], timeout: 60)
        clock.note("again, as a person sees it (the quote is single use, so it is gone now): exit \(text.status): \(text.failureText)")
        try net.hub.mine(1)
        usleep(1_200_000)
        let middle = try net.hub.rpc.balances()
        let carolMiddle = try carol.walletBalance().total
        let providerSwaps = JSON.array(try provider.must(["swaps"])["swaps"]).count
        let clientSwap = try onlySwap(client, role: "client")
        var checks = [
            Check("the quote said how long it is valid", validFor > 0 && validFor <= Int64(shortQuoteLifetime),
                  "valid_for_seconds \(validFor), lifetime \(shortQuoteLifetime) s"),
            Check("the expired quote is refused with quote_expired, exit 1", refused.status == 1
                      && JSON.string(JSON.object(refused.json?["error"])?["code"]) == "quote_expired" && refused.failureText.contains("nothing was paid"),
                  "exit \(refused.status), code \(JSON.string(JSON.object(refused.json?["error"])?["code"]) ?? "none"): \(refused.failureText)"),
            Check("nothing paid: client, carol and provA unchanged, no provider swap",
                  middle.lightningMsat("client") == before.lightningMsat("client")
                      && middle.lightningMsat(provider.name) == before.lightningMsat(provider.name)
                      && carolMiddle == carolBefore && providerSwaps == 0,
                  "client Lightning \(formatMsat(before.lightningMsat("client"))) -> \(formatMsat(middle.lightningMsat("client"))); "
                  + "carol \(formatSats(carolBefore)) -> \(formatSats(carolMiddle)); provA swaps \(providerSwaps)"),
            Check("the client's record of the refused quote is final", clientSwap.id == quoteID && clientSwap.final,
                  "client swap \(clientSwap.id) in \(clientSwap.state), final \(clientSwap.final)"),
        ]
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat,
                                           expectProvider: provider, commitQuote: true)
        return checks
    }

    // MARK: - fee-jump

    static func feeJump(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let start = try lockPending(net, clock)
        let (provider, carol, before, carolBefore) = (start.provider, start.carol, start.before, start.carolBefore)
        let (quote, pay, lockTxid) = (start.quote, start.pay, start.lockTxid)
        defer { pay.stop() }

        let jumped = Testnet.feeRateSatPerKvB * 5
        try clock.stage("the fee estimate jumps fivefold: \(Testnet.feeRateSatPerKvB) -> \(jumped) sat/kvB") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_setfeeestimate", [jumped])
            let estimate = JSON.object(try net.hub.rpc.call("estimatesmartfee", [2]))
            clock.note("estimatesmartfee 2: \(JSON.line(estimate))")
        }
        try clock.stage("mine the lock's block") { () throws(Failure) in try net.hub.mine(1) }
        let claim = try waitForClaimInMempool(net, clock, excluding: lockTxid, pay: pay)
        try clock.stage("mine until pay ends and carol's wallet has it") { () throws(Failure) in
            try mineUntilPaid(net, pay: pay, carol: carol, carolBefore: carolBefore)
        }
        let mined = try minedIn(net, claim.txid)
        clock.note("claim \(claim.txid): \(claim.fee) sat for \(claim.vsize) vB = \(claim.fee * 1_000 / max(1, claim.vsize)) sat/kvB "
                   + "(quoted claim rate \(Testnet.feeRateSatPerKvB) sat/kvB, estimate now \(jumped)); "
                   + "mined: \(mined)")
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) more block(s)")
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().confirmed - carolBefore
        let providerSwap = try onlySwap(provider, role: "provider")
        let quotedClaimFee = JSON.int(JSON.object(quote["fees"])?["claim_fee_sat"]) ?? -1
        var checks = [
            Check("carol received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))"),
            Check("the claim confirmed before the timeout: provA settled, no refund", providerSwap.state == "settled",
                  "provA swap \(providerSwap.id) in \(providerSwap.state); pay: \(pay.outcome.prefix(120))"),
            Check("the claim paid exactly the quoted claim fee (X exact; no bump this far from the timeout)",
                  quotedClaimFee == claim.fee,
                  "claim \(formatSats(claim.fee)) for \(claim.vsize) vB; quoted claim fee \(formatSats(quotedClaimFee)); "
                  + "estimate now \(jumped) sat/kvB"),
        ]
        checks += Scenario.paidChecks(before: before, after: after, result: quote, provider: provider)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    // MARK: - reorg

    static func reorg(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let start = try lockPending(net, clock)
        let (client, provider, carol, before, carolBefore) = (start.client, start.provider, start.carol, start.before, start.carolBefore)
        let (quote, pay, lockTxid) = (start.quote, start.pay, start.lockTxid)
        defer { pay.stop() }
        let lockBlock = try clock.stage("mine the lock's block") { () throws(Failure) -> String in
            try net.hub.mine(1)
            return try bestBlock(net)
        }
        let lockBlockTxids = try blockTxids(net, lockBlock)
        let claim = try waitForClaimInMempool(net, clock, excluding: lockTxid, pay: pay)
        let claimBlock = try clock.stage("mine the claim's block; wait for pay to end") { () throws(Failure) -> String in
            try net.hub.mine(1)
            let hash = try bestBlock(net)
            try pay.wait(timeout: 120)
            clock.note(pay.outcome)
            return hash
        }
        let claimBlockTxids = try blockTxids(net, claimBlock)
        _ = try net.mine(until: "carol seeing the claim", blocks: 5) { () throws(Failure) -> Bool in
            try carol.walletBalance().confirmed >= carolBefore + amountSat
        }
        let carolSawIt = try carol.walletBalance().confirmed - carolBefore
        let heightBefore = try net.hub.rpc.balances().height

        let (mempoolAfter, carolDuring) = try clock.stage("invalidateblock \(lockBlock.prefix(16))… (the lock's block and every block after it)") {
            () throws(Failure) -> ([String], Int64) in
            _ = try net.hub.rpc.call("invalidateblock", [lockBlock])
            let mempool = JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string)
            clock.note("tip now \(try net.hub.rpc.balances().height) (was \(heightBefore)); mempool: \(mempool.joined(separator: ", "))")
            if net.onElectrum {
                // An Electrum server follows a reorg only once the new chain outgrows the old
                // one (ElectrumX never goes back to a shorter chain): the claim is held out of
                // a replacement chain one block longer, so the wallets have a reorg to follow.
                _ = try net.hub.rpc.call("hub_hold_transaction", [claim.txid])
                let longer = Int(heightBefore - (try net.hub.rpc.balances().height)) + 1
                try net.hub.mine(longer)
                clock.note("mined \(longer) block(s) without the claim: tip \(try net.hub.rpc.balances().height)")
            }
            // The wallets follow the chain every second (on Electrum, after the server's next poll).
            usleep(net.onElectrum ? 4_000_000 : 2_500_000)
            let carolNow = try carol.walletBalance().confirmed - carolBefore
            clock.note("carol's confirmed gain with the claim out of the chain: \(formatSats(carolNow))")
            if net.onElectrum { _ = try net.hub.rpc.call("hub_release_transaction", [claim.txid]) }
            return (mempool, carolNow)
        }
        let replacement = max(1, Int(heightBefore - (try net.hub.rpc.balances().height)) + 1)
        try clock.stage("mine a replacement chain of \(replacement) block(s)") { () throws(Failure) in try net.hub.mine(replacement) }
        let relocked = try confirmedBlock(net, lockTxid)
        let reclaimed = try confirmedBlock(net, claim.txid)
        clock.note("lock now in \(relocked ?? "no block"), claim in \(reclaimed ?? "no block")")
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) more block(s)")
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().confirmed - carolBefore
        let carolOutputs = try carol.must(["wallet", "balance"])
        clock.note("carol's wallet: \(JSON.line(carolOutputs))")
        let providerSwap = try onlySwap(provider, role: "provider")
        let clientSwap = try onlySwap(client, role: "client")
        var checks = [
            Check("the lock and the claim were in the blocks taken out", lockBlockTxids.contains(lockTxid)
                      && claimBlockTxids.contains(claim.txid),
                  "lock \(lockTxid) in \(lockBlock.prefix(16))…: \(lockBlockTxids.contains(lockTxid)); "
                  + "claim \(claim.txid) in \(claimBlock.prefix(16))…: \(claimBlockTxids.contains(claim.txid))"),
            Check("carol had seen the claim confirmed before the reorg", carolSawIt == amountSat, "+\(formatSats(carolSawIt))"),
            Check("invalidateblock put the lock and the claim back in the mempool",
                  mempoolAfter.contains(lockTxid) && mempoolAfter.contains(claim.txid),
                  "mempool after: \(mempoolAfter.joined(separator: ", "))"),
            Check("carol's wallet followed the reorg: nothing confirmed while the claim was out", carolDuring == 0,
                  "confirmed gain then \(formatSats(carolDuring))"),
            Check("the lock and the claim confirmed again on the replacement chain",
                  relocked != nil && reclaimed != nil && relocked != lockBlock && reclaimed != claimBlock,
                  "lock in \(relocked ?? "none"), claim in \(reclaimed ?? "none")"),
            Check("carol received exactly \(formatSats(amountSat)), once", received == amountSat, "+\(formatSats(received))"),
            Check("both sides ended as a delivered swap", providerSwap.state == "settled" && clientSwap.state == "completed",
                  "provA \(providerSwap.state), client \(clientSwap.state)"),
        ]
        checks += Scenario.paidChecks(before: before, after: after, result: quote, provider: provider)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    // MARK: - building blocks

    /// Where `fee-jump` and `reorg` start: a client that claims only after the lock
    /// confirms (`zero_conf=0`, so there is a window between the lock's broadcast and the
    /// claim), `pay --quote` running in the background, and its lock in the mempool.
    struct LockPending {
        let client: Node
        let provider: Node
        let carol: Node
        let before: HubBalances
        let carolBefore: Int64
        let quote: [String: Any]
        let pay: BackgroundCommand
        let lockTxid: String
    }

    static func lockPending(_ net: Testnet, _ clock: StageClock) throws(Failure) -> LockPending {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: ["client": ["zero_conf=0"]])
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().confirmed
        let (quote, pay) = try quoteAndStartPay(net, clock, client: client, carol: carol)
        let lockTxid: String
        do { lockTxid = try waitForLockInMempool(net, clock, provider: providers[0], pay: pay) } catch {
            pay.stop()
            throw error
        }
        return LockPending(client: client, provider: providers[0], carol: carol, before: before, carolBefore: carolBefore,
                           quote: quote, pay: pay, lockTxid: lockTxid)
    }

    /// `quote` (the provider's firm quote, whose total the client must pay exactly), then
    /// `pay --quote <id>` in the background, no blocks mined yet.
    static func quoteAndStartPay(_ net: Testnet, _ clock: StageClock, client: Node,
                                 carol: Node) throws(Failure) -> ([String: Any], BackgroundCommand) {
        let quote = try clock.stage("quote \(formatSats(amountSat)) to carol") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["quote", String(amountSat), "--contact", carol.name], timeout: 60)
            clock.note(Demo.routeAndFees(json))
            return json
        }
        guard let id = JSON.string(quote["quote_id"]) else { throw Failure("`quote` printed no quote_id: \(JSON.line(quote))") }
        let pay = try clock.stage("pay carol \(formatSats(amountSat)) --quote \(id), in the background") { () throws(Failure) -> BackgroundCommand in
            try BackgroundCommand(net, node: client, ["pay", carol.name, String(amountSat), "--quote", id], name: "pay")
        }
        return (quote, pay)
    }

    /// Waits until the provider's swap says `lock_broadcast` and the lock is the one
    /// transaction in the mempool; its txid.
    static func waitForLockInMempool(_ net: Testnet, _ clock: StageClock, provider: Node,
                                     pay: BackgroundCommand) throws(Failure) -> String {
        try clock.stage("wait until \(provider.name) has broadcast the lock") { () throws(Failure) -> String in
            let txid = try poll("\(provider.name)'s lock in the mempool", timeout: 60, pay: pay) { () throws(Failure) -> String? in
                let states = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap { JSON.string(JSON.object($0)?["state"]) }
                guard states.contains("lock_broadcast") else { return nil }
                let mempool = JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string)
                return mempool.count == 1 ? mempool[0] : nil
            }
            clock.note("lock \(txid) in the mempool")
            return txid
        }
    }

    /// Waits until a transaction other than `lock` is in the mempool (the client's claim);
    /// its txid, fee and size.
    static func waitForClaimInMempool(_ net: Testnet, _ clock: StageClock, excluding lock: String,
                                      pay: BackgroundCommand) throws(Failure) -> (txid: String, fee: Int64, vsize: Int64) {
        try clock.stage("wait for the client's claim") { () throws(Failure) -> (txid: String, fee: Int64, vsize: Int64) in
            let txid = try poll("the claim in the mempool", timeout: 60, pay: pay) { () throws(Failure) -> String? in
                JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string).first { $0 != lock }
            }
            let entry = JSON.object(try net.hub.rpc.call("getmempoolentry", [txid]))
            guard let fee = JSON.sats(btc: JSON.object(entry?["fees"])?["base"]), let vsize = JSON.int(entry?["vsize"]) else {
                throw Failure("getmempoolentry \(txid): no fees.base or vsize in \(JSON.line(entry))")
            }
            clock.note("claim \(txid): fee \(formatSats(fee)), \(vsize) vB")
            return (txid, fee, vsize)
        }
    }

    /// Mines a block at a time until `pay` has ended and carol's wallet has the amount.
    static func mineUntilPaid(_ net: Testnet, pay: BackgroundCommand, carol: Node, carolBefore: Int64) throws(Failure) {
        _ = try net.mine(until: "pay ending and carol receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
            if pay.isRunning { return false }
            return try carol.walletBalance().confirmed >= carolBefore + amountSat
        }
        try pay.wait(timeout: 30)
    }

    /// Polls `look` every 200 ms until it returns a value; fails when `pay` ended first.
    static func poll<T>(_ what: String, timeout: TimeInterval, pay: BackgroundCommand,
                        _ look: () throws(Failure) -> T?) throws(Failure) -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = try look() { return value }
            if !pay.isRunning { throw Failure("`pay` ended (\(pay.outcome)) before \(what)") }
            usleep(200_000)
        }
        throw Failure("no \(what) within \(Int(timeout)) s")
    }

    /// The one swap record a node holds in `role`.
    static func onlySwap(_ node: Node, role: String) throws(Failure) -> (id: String, state: String, final: Bool) {
        let swaps = JSON.array(try node.must(["swaps"])["swaps"]).compactMap(JSON.object).filter { JSON.string($0["role"]) == role }
        guard swaps.count == 1, let swap = swaps.first else {
            throw Failure("\(node.name) holds \(swaps.count) \(role) swap(s), expected one")
        }
        return (JSON.string(swap["id"]) ?? "?", JSON.string(swap["state"]) ?? "?", JSON.bool(swap["final"]) ?? false)
    }

    static func bestBlock(_ net: Testnet) throws(Failure) -> String {
        guard let hash = JSON.string(try net.hub.rpc.call("getbestblockhash")) else { throw Failure("getbestblockhash: no hash") }
        return hash
    }

    static func blockTxids(_ net: Testnet, _ hash: String) throws(Failure) -> [String] {
        JSON.array(JSON.object(try net.hub.rpc.call("getblock", [hash, 1]))?["tx"]).compactMap(JSON.string)
    }

    /// The active-chain block holding `txid`, or nil while it is unconfirmed.
    static func confirmedBlock(_ net: Testnet, _ txid: String) throws(Failure) -> String? {
        let tx = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
        guard (JSON.int(tx?["confirmations"]) ?? 0) > 0 else { return nil }
        return JSON.string(tx?["blockhash"])
    }

    /// Where a transaction was mined: its confirmations and block.
    static func minedIn(_ net: Testnet, _ txid: String) throws(Failure) -> String {
        let tx = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
        return "\(JSON.int(tx?["confirmations"]).map(String.init) ?? "0") confirmation(s) in \(JSON.string(tx?["blockhash"]) ?? "no block")"
    }

    /// The lock a pay created since `height`: the output the client's claim spends, and its
    /// scriptPubKey type as the chain reports it.
    static func lockOutput(_ net: Testnet, since height: Int64) throws(Failure) -> (txid: String, vout: Int64, type: String) {
        let tip = try net.hub.rpc.balances().height
        var txids = Set<String>()
        var transactions: [[String: Any]] = []
        for blockHeight in (height + 1)...max(height + 1, tip) {
            guard let hash = JSON.string(try net.hub.rpc.call("getblockhash", [blockHeight])) else { continue }
            let block = JSON.object(try net.hub.rpc.call("getblock", [hash, 2]))
            for tx in JSON.array(block?["tx"]).compactMap(JSON.object) {
                txids.insert(JSON.string(tx["txid"]) ?? "")
                transactions.append(tx)
            }
        }
        // The claim: the transaction whose one input spends an output of another transaction of these blocks.
        for tx in transactions {
            let inputs = JSON.array(tx["vin"]).compactMap(JSON.object)
            guard inputs.count == 1, let spent = JSON.string(inputs[0]["txid"]), txids.contains(spent),
                  let vout = JSON.int(inputs[0]["vout"]) else { continue }
            let lock = JSON.object(try net.hub.rpc.call("getrawtransaction", [spent, true]))
            let output = JSON.array(lock?["vout"]).compactMap(JSON.object).first { JSON.int($0["n"]) == vout }
            let type = JSON.string(JSON.object(output?["scriptPubKey"])?["type"]) ?? "?"
            return (spent, vout, type)
        }
        throw Failure("no transaction spending another one's output between heights \(height + 1) and \(tip)")
    }
}
