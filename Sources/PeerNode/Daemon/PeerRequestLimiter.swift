import Synchronization
import Transport

/// Requests per peer, as a token bucket: `burst` at once, refilled at `perSecond` (100/s
/// and 200 by default: far above a wallet's needs, a `pay` takes about five requests, yet
/// a flood of quote requests is held to a tenth of what one connection can send). A peer
/// over its share is answered `rate_limited` with when to retry; other peers are not
/// affected (issue 22). At most `maxPeers` buckets are kept: past that, the least recently
/// seen is forgotten (a forgotten peer starts with a full bucket, which bounds memory
/// without letting one identity use more than `burst` at a time).
final class PeerRequestLimiter: Sendable {
    struct Bucket: Sendable {
        var tokens: Double
        var updatedMilliseconds: UInt64
    }

    let perSecond: Double
    let burst: Double
    let maxPeers: Int
    private let buckets = Mutex<[Pubky: Bucket]>([:])

    init(perSecond: Double = 100, burst: Double = 200, maxPeers: Int = 10_000) {
        self.perSecond = perSecond
        self.burst = burst
        self.maxPeers = maxPeers
    }

    /// Takes one request from `peer`'s bucket at `nowMilliseconds`; nil when allowed,
    /// else the milliseconds until one more is.
    func take(_ peer: Pubky, nowMilliseconds: UInt64) -> UInt64? {
        buckets.withLock { buckets in
            var bucket = buckets[peer] ?? Bucket(tokens: burst, updatedMilliseconds: nowMilliseconds)
            let elapsed = Double(nowMilliseconds &- bucket.updatedMilliseconds) / 1_000
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * perSecond)
            bucket.updatedMilliseconds = nowMilliseconds
            defer {
                if buckets.count >= maxPeers, buckets[peer] == nil,
                   let stalest = buckets.min(by: { $0.value.updatedMilliseconds < $1.value.updatedMilliseconds })?.key {
                    buckets[stalest] = nil
                }
                buckets[peer] = bucket
            }
            guard bucket.tokens >= 1 else {
                return UInt64(((1 - bucket.tokens) / perSecond * 1_000).rounded(.up))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
