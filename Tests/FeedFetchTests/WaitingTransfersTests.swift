import Testing

@testable import FeedFetch

/// The waiting list's order: arrival order across hosts, a full host holds
/// back only its own, a cancelled one leaves no trace, and many waiting on
/// one host cost no more than a few.
@Suite struct WaitingTransfersTests {
    /// Starts what the limits allow, as `TransferLoop` does: `running` per host, at most `perHost`.
    static func start(
        _ waiting: inout WaitingTransfers<String>, running: inout [String: Int], perHost: Int, slots: Int
    ) -> [String] {
        var started: [String] = []
        while started.count < slots, let (element, host) = waiting.popFirst(where: { running[$0, default: 0] < perHost }) {
            running[host, default: 0] += 1
            started.append(element)
        }
        return started
    }

    @Test func arrivalOrderAcrossHostsAndAFullHostHoldsBackOnlyItsOwn() {
        var waiting = WaitingTransfers<String>()
        for (element, host) in [("a1", "a"), ("a2", "a"), ("b1", "b"), ("a3", "a"), ("c1", "c"), ("b2", "b")] {
            waiting.append(element, host: host)
        }
        var running: [String: Int] = [:]
        #expect(Self.start(&waiting, running: &running, perHost: 1, slots: 10) == ["a1", "b1", "c1"])
        #expect(waiting.count == 3)
        // One of a's finishes: a2 (not b2, whose host is still full).
        running["a"]! -= 1
        waiting.hostHasRoom("a")
        #expect(Self.start(&waiting, running: &running, perHost: 1, slots: 10) == ["a2"])
        running["b"]! -= 1
        waiting.hostHasRoom("b")
        running["a"]! -= 1
        waiting.hostHasRoom("a")
        #expect(Self.start(&waiting, running: &running, perHost: 1, slots: 10) == ["a3", "b2"])
        #expect(waiting.isEmpty)
    }

    @Test func theGlobalLimitKeepsTheRestInOrder() {
        var waiting = WaitingTransfers<String>()
        for n in 0..<6 { waiting.append("x\(n)", host: "h\(n % 3)") }
        var running: [String: Int] = [:]
        #expect(Self.start(&waiting, running: &running, perHost: 4, slots: 2) == ["x0", "x1"])
        #expect(Self.start(&waiting, running: &running, perHost: 4, slots: 10) == ["x2", "x3", "x4", "x5"])
    }

    @Test func cancelledOnesLeaveNoTrace() {
        var waiting = WaitingTransfers<String>()
        waiting.append("a1", host: "a")
        waiting.append("b1", host: "b")
        waiting.append("a2", host: "a")
        #expect(waiting.remove(where: { $0 == "a1" }) == "a1")
        #expect(waiting.remove(where: { $0 == "nothing" }) == nil)
        #expect(waiting.remove(where: { $0 == "a2" }) == "a2")
        waiting.append("a3", host: "a")  // a's queue was emptied and begins again
        var running: [String: Int] = [:]
        #expect(Self.start(&waiting, running: &running, perHost: 1, slots: 10) == ["b1", "a3"])
        #expect(waiting.isEmpty)
    }

    @Test func manyOnOneFullHostAreNotWalkedPast() {
        var waiting = WaitingTransfers<Int>()
        for n in 0..<20_000 { waiting.append(n, host: "one") }
        waiting.append(-1, host: "other")
        var running = 0
        var order: [Int] = []
        // 4 at a time on "one"; when nothing more can start, the 4 finish (as the engine's passes go).
        while !waiting.isEmpty {
            while let (element, host) = waiting.popFirst(where: { $0 == "other" || running < 4 }) {
                order.append(element)
                if host == "one" { running += 1 }
            }
            running = 0
            waiting.hostHasRoom("one")
        }
        #expect(order.count == 20_001)
        #expect(Array(order.prefix(5)) == [0, 1, 2, 3, -1])
        #expect(Array(order.suffix(3)) == [19_997, 19_998, 19_999])
    }

    @Test func removeAllGivesArrivalOrder() {
        var waiting = WaitingTransfers<String>()
        for (element, host) in [("1", "b"), ("2", "a"), ("3", "b"), ("4", "c")] { waiting.append(element, host: host) }
        #expect(waiting.removeAll() == ["1", "2", "3", "4"])
        #expect(waiting.isEmpty)
    }
}
