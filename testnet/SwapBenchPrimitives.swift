import Foundation

/// The peer the benchmark's ratio uses: the hub primitives one swap needs, timed directly
/// from this process over loopback in the same run. A swap is one hold-invoice payment
/// (the provider's invoice, held until the client's preimage settles it) and two
/// transactions accepted into the mempool (the lock, the claim).
struct HubPrimitives {
    /// addholdinvoice on the payee, router/send on the payer, settle on the payee once the
    /// HTLC is held (retried until then), up to the payment's SUCCEEDED: milliseconds each.
    let holdRoundTrips: [Double]
    /// hub_fund without mining: the hub signs a payment and accepts it into its mempool
    /// (what sendrawtransaction does, plus the hub's own signing): milliseconds each.
    let mempoolAccepts: [Double]

    /// What one swap's primitives take at the median: a hold round trip and two accepts.
    var swapMilliseconds: Double { Bench.quantile(holdRoundTrips, 0.5) + 2 * Bench.quantile(mempoolAccepts, 0.5) }

    /// A Lightning node of the hub, called through its LND REST API.
    struct RESTNode {
        let name: String
        let port: Int
        let macaroonHex: String

        init(_ net: Testnet, name: String, sat: Int64) throws(Failure) {
            // Plain HTTP: these calls go through this program's loopback HTTP client.
            let made = try net.hub.rpc.call("hub_ln_addnode", [name, sat, true])
            guard let info = JSON.object(made), let port = JSON.int(info["rest_port"]), let macaroon = JSON.string(info["macaroon_hex"]) else {
                throw Failure("hub_ln_addnode \(name): no rest_port or macaroon_hex in \(JSON.line(made).prefix(300))")
            }
            self.name = name
            self.port = Int(port)
            macaroonHex = macaroon
        }

        var headers: [String: String] { ["Grpc-Metadata-macaroon": macaroonHex, "Content-Type": "application/json"] }

        func body(_ fields: [String: Any]) throws(Failure) -> Data {
            do { return try JSONSerialization.data(withJSONObject: fields) } catch { throw Failure("cannot encode \(fields): \(error)") }
        }

        func post(_ path: String, _ fields: [String: Any]) throws(Failure) -> LoopbackHTTP.Response {
            try LoopbackHTTP.post(port: port, path: path, headers: headers, body: try body(fields), timeout: 30)
        }

        func mustPost(_ path: String, _ fields: [String: Any]) throws(Failure) -> [String: Any] {
            let response = try post(path, fields)
            guard response.status == 200, let json = JSON.parse(response.body) as? [String: Any] else {
                throw Failure("\(name) \(path): HTTP \(response.status): \(response.body.prefix(300))")
            }
            return json
        }
    }

    static func measure(_ net: Testnet, rounds: Int) throws(Failure) -> HubPrimitives {
        let payer = try RESTNode(net, name: "rawpayer", sat: Int64(rounds) * 40_000)
        let payee = try RESTNode(net, name: "rawpayee", sat: 0)
        var holds: [Double] = []
        for _ in 0..<rounds { holds.append(try holdRoundTrip(from: payer, to: payee, sat: 20_000)) }

        guard let hubAddress = JSON.string(JSON.object(try net.hub.rpc.balances().raw["hub"])?["address"]) else {
            throw Failure("hub_balances names no hub address")
        }
        var accepts: [Double] = []
        let amount = NSDecimalNumber(mantissa: 100_000, exponent: -8, isNegative: false)
        for _ in 0..<rounds {
            let started = ContinuousClock.now
            _ = try net.hub.rpc.call("hub_fund", [hubAddress, amount, false])
            accepts.append(Bench.seconds(since: started) * 1_000)
        }
        try net.hub.mine(1)
        return HubPrimitives(holdRoundTrips: holds, mempoolAccepts: accepts)
    }

    /// One hold-invoice payment, timed from adding the invoice to the payer's SUCCEEDED.
    private static func holdRoundTrip(from payer: RESTNode, to payee: RESTNode, sat: Int64) throws(Failure) -> Double {
        let preimage = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        // The payment hash, untimed: the payer's own plain invoice for this preimage reports
        // it (this program links no hash function). That invoice is never paid.
        let plain = try payer.mustPost("/v1/invoices", ["value": "1000", "r_preimage": preimage.base64EncodedString()])
        guard let hash = JSON.string(plain["r_hash"]) else { throw Failure("addinvoice gave no r_hash: \(JSON.line(plain))") }

        let started = ContinuousClock.now
        let invoice = try payee.mustPost("/v2/invoices/hodl", ["hash": hash, "value": String(sat)])
        guard let request = JSON.string(invoice["payment_request"]) else {
            throw Failure("addholdinvoice gave no payment_request: \(JSON.line(invoice))")
        }
        let sending = try LoopbackHTTP.send(port: payer.port, path: "/v2/router/send", headers: payer.headers,
                                            body: try payer.body(["payment_request": request, "fee_limit_sat": "100", "cltv_limit": 1_000,
                                                                  "timeout_seconds": 60]), timeout: 30)
        defer { sending.close() }
        // Settling succeeds once the HTLC is held (ACCEPTED); before that the invoice is open.
        let deadline = Date().addingTimeInterval(10)
        while true {
            let settled = try payee.post("/v2/invoices/settle", ["preimage": preimage.base64EncodedString()])
            if settled.status == 200 { break }
            if Date() > deadline {
                let payment = (try? sending.response().body) ?? "no answer"
                throw Failure("the hold invoice was never held: last settle HTTP \(settled.status): \(settled.body.prefix(200)); "
                    + "the payment said: " + payment.split(separator: ",").filter { $0.contains("status") || $0.contains("failure") }
                        .joined(separator: ","))
            }
        }
        let outcome = try sending.response()
        guard outcome.body.contains("\"SUCCEEDED\"") else {
            throw Failure("the hold-invoice payment did not succeed: HTTP \(outcome.status): \(outcome.body.suffix(300))")
        }
        return Bench.seconds(since: started) * 1_000
    }
}
