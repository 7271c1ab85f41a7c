import CLibUV
import Glibc

/// An IPv4 or IPv6 socket address, as libuv takes and returns them.
public struct SocketAddress: Sendable, CustomStringConvertible {
    /// Big enough for either family; libuv reads the family from the first field.
    var storage: sockaddr_storage

    init(storage: sockaddr_storage) {
        self.storage = storage
    }

    /// A numeric address (`127.0.0.1`, `::1`, `[::1]`), or nil if `host` is a name.
    /// uv_ip4_addr/uv_ip6_addr are pure parsers (no loop), safe on any thread.
    public init?(numericHost host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            if uv_ip4_addr(bare, Int32(port), raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)) == 0 {
                return true
            }
            return uv_ip6_addr(bare, Int32(port), raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)) == 0
        }
        guard parsed else { return nil }
        self.storage = storage
    }

    /// True for an IPv6 address.
    public var isIPv6: Bool { Int32(storage.ss_family) == AF_INET6 }

    /// The port, in host byte order.
    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The address without the port: `127.0.0.1` or `::1`.
    public var host: String {
        var name = [CChar](repeating: 0, count: 64)
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                _ = uv_ip6_name(raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self), &name, name.count)
            } else {
                _ = uv_ip4_name(raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self), &name, name.count)
            }
        }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public var addressBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                return withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            }
            return withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr) { Array($0) }
        }
    }

    /// `127.0.0.1:8333` or `[::1]:8333`, for logs.
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Runs `body` with the address as the `sockaddr` libuv takes.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: storage) { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }

    /// Reads a TCP handle's local or peer address. Loop thread only.
    static func of(
        _ tcp: UnsafeMutablePointer<uv_tcp_t>, peer: Bool
    ) throws(LibUVError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutableBytes(of: &storage) { raw in
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return peer ? uv_tcp_getpeername(tcp, address, &length) : uv_tcp_getsockname(tcp, address, &length)
        }
        if peer { try uvCheck(rc, "uv_tcp_getpeername") } else { try uvCheck(rc, "uv_tcp_getsockname") }
        return SocketAddress(storage: storage)
    }
}
