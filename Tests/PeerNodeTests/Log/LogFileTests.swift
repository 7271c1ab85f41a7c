#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import PeerNode
import Synchronization
import XCTest

/// The daemon's `peernode.log`: one line per entry with an ISO 8601 UTC time and a level,
/// rotated by size into a fixed number of older files.
final class LogFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/peernode-logtest-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        directory = try XCTUnwrap(made)
    }

    override func tearDown() {
        for name in ["peernode.log", "peernode.log.1", "peernode.log.2", "peernode.log.3"] {
            unlink(directory + "/" + name)
        }
        rmdir(directory)
    }

    private func read(_ name: String) -> String? {
        guard let bytes = try? PosixFile.read(directory + "/" + name, limit: 1 << 20) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testALineCarriesAnISOTimeAndALevel() {
        // 2026-12-01T00:01:02.345Z
        let millis: Int64 = 1_796_083_262_345
        XCTAssertEqual(LogLine.format("provider swap 1f: lock 9a broadcast (20,354 sat)", unixMillis: millis),
                       "2026-12-01T00:01:02.345Z INFO  provider swap 1f: lock 9a broadcast (20,354 sat)\n")
        XCTAssertEqual(LogLine.format("ALARM provider swap 1f: the lock was spent without a preimage", unixMillis: millis),
                       "2026-12-01T00:01:02.345Z ALARM provider swap 1f: the lock was spent without a preimage\n")
        XCTAssertEqual(LogLine.format("wallet sync failed: Bitcoin Core is unreachable", unixMillis: millis),
                       "2026-12-01T00:01:02.345Z WARN  wallet sync failed: Bitcoin Core is unreachable\n")
        // One entry is one line, whatever it carries.
        XCTAssertEqual(LogLine.format("two\nlines\r", unixMillis: 0), "1970-01-01T00:00:00.000Z INFO  two\\nlines\\r\n")
    }

    func testTheLevelIsReadFromWhatTheLineReports() {
        XCTAssertEqual(LogLevel.of("ALARM provider swap x: lock_lost"), .alarm)
        XCTAssertEqual(LogLevel.of("provider swap x: publishing lock y failed: refused"), .warn)
        XCTAssertEqual(LogLevel.of("provider swap x: cannot lock 20 sat: insufficient funds"), .warn)
        XCTAssertEqual(LogLevel.of("listening on 127.0.0.1:9735"), .info)
        // Each word anywhere, whole line or not; case matters; a word cut by the end is none.
        for word in ["failed", "cannot ", "refused", "unreachable", "error"] {
            XCTAssertEqual(LogLevel.of(word), .warn, word)
            XCTAssertEqual(LogLevel.of("swap é1: " + word + " at the end"), .warn, word)
            XCTAssertEqual(LogLevel.of("at the end: " + word), .warn, word)
            XCTAssertEqual(LogLevel.of("at the end: " + word.dropLast()), .info, word)
            XCTAssertEqual(LogLevel.of("no " + word.uppercased()), .info, word)
        }
        XCTAssertEqual(LogLevel.of("cannotx"), .info, "\"cannot \" has its space")
        XCTAssertEqual(LogLevel.of("errorless"), .warn, "a word inside another counts, as before")
        XCTAssertEqual(LogLevel.of(""), .info)
    }

    func testTheFileRotatesBySizeAndKeepsTheNewestFiles() throws {
        let file = try LogFile(directory: directory, maxBytes: 200, keep: 2, nowMillis: { 0 })
        // Each entry is 31 (time and level) + 50 + 1 = 82 bytes: two fit in 200, a third does not.
        let text = { (index: Int) in String(repeating: Character(String(index)), count: 50) }
        for index in 1...7 { file.write(text(index)) }
        XCTAssertEqual(read("peernode.log")?.split(separator: "\n").map { String($0.suffix(50)) }, [text(7)])
        XCTAssertEqual(read("peernode.log.1")?.split(separator: "\n").map { String($0.suffix(50)) }, [text(5), text(6)])
        XCTAssertEqual(read("peernode.log.2")?.split(separator: "\n").map { String($0.suffix(50)) }, [text(3), text(4)])
        XCTAssertNil(read("peernode.log.3"), "only `keep` older files are kept")
    }

    func testARestartedDaemonAppendsAndCountsWhatIsThere() throws {
        let first = try LogFile(directory: directory, maxBytes: 200, keep: 2, nowMillis: { 0 })
        first.write(String(repeating: "a", count: 50))
        first.close()
        let second = try LogFile(directory: directory, maxBytes: 200, keep: 2, nowMillis: { 0 })
        second.write(String(repeating: "b", count: 50))
        second.write(String(repeating: "c", count: 50))
        XCTAssertEqual(read("peernode.log")?.split(separator: "\n").count, 1, "a and b filled it; c starts a new file")
        XCTAssertEqual(read("peernode.log.1")?.split(separator: "\n").count, 2)
    }

    /// The daemon's echo (its stderr) is the file's entry itself, formatted once: the same
    /// time to the millisecond, the same level and text.
    func testTheEchoIsTheEntryWrittenToTheFile() throws {
        let file = try LogFile(directory: directory, nowMillis: { 1_796_572_049_361 })
        let echoed = Mutex<[String]>([])
        let log = DaemonLog.file(file) { line in echoed.withLock { $0.append(line) } }
        log("swap 2789d998: lock_seen: lock seen (push)")
        log("wallet sync failed: the backend is unreachable")
        XCTAssertEqual(echoed.withLock { $0 }.joined(), read("peernode.log"))
        XCTAssertEqual(echoed.withLock { $0 }.first?.hasPrefix("2026-12-06T15:47:29.361Z INFO "), true)
    }

    func testAMissingDirectoryIsAClearError() {
        XCTAssertThrowsError(try LogFile(directory: directory + "/nowhere")) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot open \(directory)/nowhere/peernode.log: "), "\(error)")
        }
    }
}
