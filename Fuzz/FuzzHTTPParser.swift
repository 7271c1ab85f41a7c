// libFuzzer harness for the HTTP/1.1 parser, both as a server reading requests and as a
// client reading responses. Only forwards bytes: the split points, the HEAD toggle and
// the small limits are chosen by the entry point from the data.
import Transport

/// Called by libFuzzer once per input. A nil pointer can arrive with a zero count, so the
/// pointer is optional; the bytes are copied because the entry point takes an array.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    HTTPParser.fuzz(Array(UnsafeRawBufferPointer(start: start, count: count)))
    // libFuzzer reserves non-zero return values; a rejected input is just a normal run.
    return 0
}
