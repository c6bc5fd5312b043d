/// The transfers waiting for a slot, for `TransferLoop`: each host's in
/// arrival order, and the hosts that have room ordered by their
/// longest-waiting transfer, so that the next transfer to start is found
/// without looking at the ones whose host is full. (One list scanned from
/// the front on every pass took 16 s for 10,000 URLs on one host: each
/// pass walked past every transfer the full host held back.)
///
/// Every host with something waiting is either ready (one entry in `ready`,
/// keyed by its first waiting transfer's arrival, or by an earlier one that
/// was cancelled since: such a key is corrected when it comes up) or parked
/// (full; it becomes ready again with `hostHasRoom`).
struct WaitingTransfers<Element> {
    private struct Queue {
        var items: [(sequence: UInt64, element: Element)] = []
        var head = 0

        var isEmpty: Bool { head == items.count }
        var first: (sequence: UInt64, element: Element)? { isEmpty ? nil : items[head] }

        mutating func removeFirst() -> Element {
            let element = items[head].element
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= items.count {  // reclaim the taken part now and then
                items.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private var queues: [String: Queue] = [:]
    private var ready = MinimumHeap()
    private var inReady: Set<String> = []
    private var parked: Set<String> = []
    private var nextSequence: UInt64 = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element, host: String) {
        nextSequence += 1
        queues[host, default: Queue()].items.append((nextSequence, element))
        count += 1
        if !inReady.contains(host) && !parked.contains(host) {
            ready.insert(nextSequence, host)
            inReady.insert(host)
        }
    }

    /// The longest-waiting transfer whose host `hasRoom`, taken out. A host
    /// without room is parked until `hostHasRoom`.
    mutating func popFirst(where hasRoom: (String) -> Bool) -> (element: Element, host: String)? {
        while let (sequence, host) = ready.popMinimum() {
            inReady.remove(host)
            guard let first = queues[host]?.first else {
                queues[host] = nil
                continue
            }
            if first.sequence != sequence {  // its first one was cancelled: queue it by the next
                ready.insert(first.sequence, host)
                inReady.insert(host)
                continue
            }
            guard hasRoom(host) else {
                parked.insert(host)
                continue
            }
            let element = queues[host]!.removeFirst()
            count -= 1
            if let next = queues[host]?.first {
                ready.insert(next.sequence, host)
                inReady.insert(host)
            } else {
                queues[host] = nil
            }
            return (element, host)
        }
        return nil
    }

    /// A transfer of `host` finished: its waiting ones may start again.
    mutating func hostHasRoom(_ host: String) {
        guard parked.remove(host) != nil, let first = queues[host]?.first else { return }
        ready.insert(first.sequence, host)
        inReady.insert(host)
    }

    /// Takes out the first waiting transfer `matches` accepts (a cancellation).
    mutating func remove(where matches: (Element) -> Bool) -> Element? {
        for (host, queue) in queues {
            guard let offset = queue.items[queue.head...].firstIndex(where: { matches($0.element) }) else { continue }
            let element = queues[host]!.items.remove(at: offset).element
            count -= 1
            if queues[host]!.isEmpty {
                queues[host] = nil
                parked.remove(host)  // a ready entry left behind is dropped when it comes up
            }
            return element
        }
        return nil
    }

    /// Every waiting transfer, in arrival order, taken out.
    mutating func removeAll() -> [Element] {
        let all = queues.values.flatMap { $0.items[$0.head...] }.sorted { $0.sequence < $1.sequence }.map(\.element)
        self = WaitingTransfers()
        return all
    }
}

/// A binary min-heap of (arrival sequence, host).
private struct MinimumHeap {
    private var items: [(sequence: UInt64, host: String)] = []

    mutating func insert(_ sequence: UInt64, _ host: String) {
        items.append((sequence, host))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].sequence < items[parent].sequence else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMinimum() -> (UInt64, String)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let minimum = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left].sequence < items[smallest].sequence { smallest = left }
            if right < items.count && items[right].sequence < items[smallest].sequence { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return (minimum.sequence, minimum.host)
    }
}
