import Foundation

/// One reading of the hub's `hub_clock`, with the runner's wall clock at that moment.
struct HubClockReading {
    let unixTime: Int64
    let wallTime: Double

    init(_ net: Testnet) throws(Failure) {
        let answer = JSON.object(try net.hub.rpc.call("hub_clock"))
        guard let time = JSON.int(answer?["unix_time"]) else { throw Failure("hub_clock answered no unix_time") }
        unixTime = time
        wallTime = Date().timeIntervalSince1970
    }

    /// How far simulated time is ahead of the wall clock, in seconds.
    var lead: Int64 { unixTime - Int64(wallTime) }
}
