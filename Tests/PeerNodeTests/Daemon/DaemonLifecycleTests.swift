#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PeerNode
import TestSupport
import XCTest

/// One daemon per data directory (issue 14): the lock file, a second `peernode run` on
/// the same directory refused with exit 4 naming the directory and the running daemon's
/// pid (even with another control socket), and `peernode stop`.
final class DaemonLifecycleTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> ProductOutcome {
        try runProduct(try productExecutable("peernode"), arguments)
    }

    func testLockIsExclusiveNamesItsHolderAndIsFreedOnRelease() throws {
        let datadir = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: datadir) }
        let first = try DataDirectoryLock.acquire(datadir: datadir)
        // flock locks belong to an open file, so a second open in this process conflicts too.
        XCTAssertThrowsError(try DataDirectoryLock.acquire(datadir: datadir)) { error in
            XCTAssertEqual(error as? DaemonError, .locked(datadir: datadir, pid: getpid()))
            XCTAssertEqual((error as? DaemonError)?.exitCode, 4)
        }
        first.release()
        let again = try DataDirectoryLock.acquire(datadir: datadir)
        again.release()
    }

    func testSecondRunOnOneDataDirectoryExitsFourAndStopEndsTheFirst() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("lock")
        let process = Process()
        process.executableURL = try productExecutable("peernode")
        process.arguments = ["run", "--datadir", datadir]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let socket = datadir + "/peernode.sock"
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: socket) {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket), "the first daemon serves")

        // Another control socket does not make it another daemon: the directory is what is locked.
        for extra in [[], ["--control_socket=" + datadir + "/second.sock"]] {
            let second = try run(["run", "--datadir", datadir] + extra)
            XCTAssertEqual(second.status, 4, "\(extra): \(second.stderr)")
            XCTAssertTrue(second.stderr.contains("already running on the data directory \(datadir)"), second.stderr)
            XCTAssertTrue(second.stderr.contains("pid \(process.processIdentifier)"), second.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: datadir + "/second.sock"))
        let status = try run(["status", "--datadir", datadir])
        XCTAssertEqual(status.status, 0, "the first daemon still serves: \(status.stderr)")

        let stop = try run(["stop", "--datadir", datadir])
        XCTAssertEqual(stop.status, 0, stop.stderr)
        XCTAssertTrue(stop.stdout.contains("stopping the daemon (pid \(process.processIdentifier))"), stop.stdout)
        for _ in 0..<200 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertFalse(process.isRunning, "stopped within 10 s of `peernode stop`")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The lock went with it.
        try DataDirectoryLock.acquire(datadir: datadir).release()
        await fixture.shutDown()
    }
}
