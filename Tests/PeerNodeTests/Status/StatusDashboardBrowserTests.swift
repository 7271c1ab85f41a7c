import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// The dashboard in a real browser: a provider on the hub with two swaps done and one in
/// flight (the first backdated two days, so the chart has two days), opened in headless Chromium (Debian's `chromium`, installed by
/// `scripts/setup.sh --status`) by `scripts/dashboard-check.py`, which logs in with the
/// token through the page's form. The numbers the page shows must be the API's, the chart
/// must have one bar per day with swaps, the console must stay clean, the page must fit a
/// phone's width, and the session cookie must be out of the script's reach. The screenshot
/// goes to a temporary file, or to docs/dashboard.png (the README shows it) when
/// PEERNODE_DASHBOARD_SCREENSHOT=docs: a test run must not change a tracked file.
final class StatusDashboardBrowserTests: XCTestCase {
    static var repository: URL {
        var repo = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { repo.deleteLastPathComponent() }
        return repo
    }

    func testTheDashboardShowsTheAPIsNumbersInChromium() async throws {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile) else {
            XCTFail("chromium is not installed: run `scripts/setup.sh --status` (or `make setup-status`), which installs Debian's chromium")
            return
        }
        let fixture = try await DaemonFixture()
        let network = StatusNetwork(fixture: fixture)
        do {
            try await network.start()
            try await network.pay(20_000)
            // The first swap two days ago, the second today: two bars, a day between them.
            try await network.backdateProviderSwaps(days: 2)
            try await network.pay(30_000)
            try await network.holdInFlight(25_000)
            let http = network.providerHTTP!
            let token = network.providerToken

            let phone = FileManager.default.temporaryDirectory.appendingPathComponent("pn-dashboard-phone-\(UUID().uuidString).png")
            defer { try? FileManager.default.removeItem(at: phone) }
            let toDocs = ProcessInfo.processInfo.environment["PEERNODE_DASHBOARD_SCREENSHOT"] == "docs"
            let screenshot = toDocs
                ? Self.repository.appendingPathComponent("docs/dashboard.png")
                : FileManager.default.temporaryDirectory.appendingPathComponent("pn-dashboard-\(UUID().uuidString).png")
            defer { if !toDocs { try? FileManager.default.removeItem(at: screenshot) } }
            let report = try runCheck(["--url", "http://127.0.0.1:\(http.port)",
                                       "--token-file", network.provider!.datadir + "/status.token",
                                       "--screenshot", screenshot.path, "--phone-screenshot", phone.path,
                                       "--chromium", chromium])

            // What the API says now (nothing moves: no block is mined while the swap waits).
            let status = try await http.json("/api/status", token: token)
            let offers = try await http.json("/api/offers", token: token)
            let limits = try await http.json("/api/limits", token: token)
            let swaps = try await http.json("/api/swaps", token: token)
            let earnings = try await http.json("/api/earnings", token: token)

            XCTAssertEqual(report["console_errors"], .array([]), "console errors: \(report["console_errors"] ?? .null)")
            XCTAssertEqual(report["cookie_visible_to_script"], .string(""), "the session cookie is HttpOnly")
            func shown(_ id: String) -> String? { report["figures"]?[id]?["value"]?.stringValue }
            func text(_ id: String) -> String { report["figures"]?[id]?["text"]?.stringValue ?? "" }
            let confirmed = try XCTUnwrap(status["wallet"]?["confirmed_sat"]?.int64Value)
            XCTAssertEqual(shown("onchain-confirmed"), String(confirmed))
            XCTAssertEqual(text("onchain-confirmed"), Self.sats(confirmed))
            let unconfirmed = try XCTUnwrap(status["wallet"]?["unconfirmed_sat"]?.int64Value)
            XCTAssertEqual(shown("onchain-unconfirmed"), String(unconfirmed))
            let lockable = try XCTUnwrap(offers["liquidity_sat"]?.int64Value)
            XCTAssertEqual(shown("onchain-lockable"), String(lockable))
            let lightning = try XCTUnwrap(status["lightning"]?["balance_sat"]?.int64Value)
            XCTAssertGreaterThan(lightning, 0, "the provider earned on Lightning")
            XCTAssertEqual(shown("lightning-balance"), String(lightning))
            XCTAssertEqual(text("lightning-balance"), Self.sats(lightning))
            let offer = try XCTUnwrap(offers["offer"])
            XCTAssertEqual(shown("offer-range"), "\(offer["min_amount_sat"]!.int64Value!)-\(offer["max_amount_sat"]!.int64Value!)")
            let exposure = try XCTUnwrap(limits["overall"]?["exposure_sat"]?.int64Value)
            XCTAssertEqual(exposure, swaps["live"]?.arrayValue?.first?["amount_sat"]?.int64Value, "the held swap's lock")
            XCTAssertGreaterThan(exposure, 25_000, "the lock holds the amount and the claim fee")
            XCTAssertEqual(shown("exposure"), String(exposure))
            XCTAssertEqual(text("exposure"), Self.sats(exposure) + " of " + Self.sats(10_000_000))
            XCTAssertEqual(shown("swaps-running"), "1")
            XCTAssertEqual(shown("live-count"), "1")
            let earned = try XCTUnwrap(earnings["total"]?["earned_sat"]?.int64Value)
            XCTAssertGreaterThan(earned, 0)
            XCTAssertEqual(shown("earned-total"), String(earned))
            XCTAssertEqual(shown("net-total"), earnings["total"]?["net_msat"]?.int64Value.map(String.init))

            // One bar per day with swaps, each the day's earnings.
            let days = earnings["days"]?.arrayValue ?? []
            XCTAssertEqual(days.count, 2, "\(earnings)")
            let bars = report["bars"]?.arrayValue ?? []
            XCTAssertEqual(bars.count, days.filter { ($0["swaps"]?.int64Value ?? 0) > 0 }.count, "\(bars)")
            for (bar, day) in zip(bars, days) {
                XCTAssertEqual(bar["day"], day["day"])
                XCTAssertEqual(bar["value"]?.stringValue, day["earned_sat"]?.int64Value.map(String.init))
                if case .number(let height)? = bar["height"] {
                    XCTAssertGreaterThan(Double(height) ?? 0, 0, "a day with earnings has a visible bar")
                } else {
                    XCTFail("a bar without a height: \(bar)")
                }
            }
            // The tables: the swap in flight with its stage and deadline, the two done.
            let liveRows = report["live"]?.arrayValue ?? []
            let live = try XCTUnwrap(swaps["live"]?.arrayValue?.first)
            XCTAssertEqual(liveRows.count, 1)
            XCTAssertEqual(liveRows.first?["swap"], live["id"])
            let cells = liveRows.first?["cells"]?.arrayValue?.compactMap(\.stringValue) ?? []
            XCTAssertEqual(cells.count, 5)
            XCTAssertEqual(cells.dropFirst(2).first, live["stage"]?.stringValue)
            XCTAssertEqual(cells.dropFirst(3).first, Self.sats(live["amount_sat"]?.int64Value ?? -1))
            XCTAssertEqual(cells.last, "\(live["blocks_left"]!.int64Value!) blocks (height \(live["timeout_height"]!.int64Value!))")
            let recentRows = report["recent"]?.arrayValue?.compactMap { $0["swap"] } ?? []
            XCTAssertEqual(recentRows, swaps["recent"]?.arrayValue?.compactMap { $0["id"] })
            XCTAssertEqual(recentRows.count, 2)
            let checks = report["checks"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            XCTAssertTrue(checks.contains("bitcoind") && checks.contains("lnd"), "\(checks)")

            // Reads well on a phone: nothing wider than the screen.
            XCTAssertEqual(report["phone"]?["width"], report["phone"]?["viewport"], "the page scrolls sideways on a phone")
            XCTAssertEqual(report["desktop"]?["width"], report["desktop"]?["viewport"])
            let png = try Data(contentsOf: screenshot)
            XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
            XCTAssertGreaterThan(png.count, 10_000)
        } catch {
            await network.stop()
            await fixture.shutDown()
            throw error
        }
        await network.stop()
        await fixture.shutDown()
    }

    private func runCheck(_ arguments: [String]) throws -> JSONValue {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.repository.appendingPathComponent("scripts/dashboard-check.py").path] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("dashboard-check.py failed (\(process.terminationStatus)): \(failure)")
            throw CocoaError(.executableLoad)
        }
        return try JSONParser.parse(Array(data), limits: JSONParser.Limits(maxLength: 4 * 1024 * 1024, maxDepth: 32))
    }

    /// As the page writes amounts: `1,234 sat`.
    static func sats(_ value: Int64) -> String {
        let digits = Array(String(value.magnitude))
        var grouped = value < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped + " sat"
    }
}
