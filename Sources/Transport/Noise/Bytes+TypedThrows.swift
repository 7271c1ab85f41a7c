/// `withUnsafeBytes` on arrays is `rethrows`, which widens any error to `any Error`; these
/// wrappers keep `NoiseError` typed through the closure, so the module's functions can
/// promise `throws(NoiseError)`.
extension Array where Element == UInt8 {
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(NoiseError) -> R) throws(NoiseError) -> R {
        try withUnsafeBytes { bytes in Result { () throws(NoiseError) -> R in try body(bytes) } }.get()
    }
}

extension ArraySlice where Element == UInt8 {
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(NoiseError) -> R) throws(NoiseError) -> R {
        try withUnsafeBytes { bytes in Result { () throws(NoiseError) -> R in try body(bytes) } }.get()
    }
}
