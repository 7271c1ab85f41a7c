/// The alarms of one loop by due time: a binary min-heap, earliest first, and among
/// alarms due at the same millisecond the one armed first. Pure, so its order and its
/// clean-up are tested without a loop.
///
/// A disarmed alarm stays in the heap until it comes to the top (or a compaction), so
/// disarming needs no search; it holds nothing by then (`Alarm` drops its action). When
/// the heap has grown to twice its size at the last compaction, what is no longer armed
/// is dropped, so a steady stream of alarms disarmed early (every request's timeout) keeps
/// it at about the number of armed ones.
struct AlarmQueue {
    private struct Entry {
        let due: UInt64
        let order: UInt64
        let alarm: Alarm

        func precedes(_ other: Entry) -> Bool { (due, order) < (other.due, other.order) }
    }

    private var heap: [Entry] = []
    private var nextOrder: UInt64 = 0
    private var compactAt = AlarmQueue.smallestCompaction
    static let smallestCompaction = 256

    /// Entries held, armed or not.
    var count: Int { heap.count }

    mutating func insert(_ alarm: Alarm, due: UInt64) {
        if heap.count >= compactAt { compact() }
        heap.append(Entry(due: due, order: nextOrder, alarm: alarm))
        nextOrder += 1
        siftUp(heap.count - 1)
    }

    /// The due time of the earliest alarm still armed; drops the others above it.
    mutating func earliestDue() -> UInt64? {
        while let top = heap.first {
            if top.alarm.isArmed { return top.due }
            removeTop()
        }
        return nil
    }

    /// Takes out every alarm due at or before `now`, earliest first; those no longer
    /// armed are left out.
    mutating func takeDue(at now: UInt64) -> [Alarm] {
        var due: [Alarm] = []
        while let top = heap.first, top.due <= now {
            removeTop()
            if top.alarm.isArmed { due.append(top.alarm) }
        }
        return due
    }

    private mutating func compact() {
        heap.removeAll { !$0.alarm.isArmed }
        // Floyd's construction: sift down every inner node, last first.
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        compactAt = max(Self.smallestCompaction, 2 * heap.count)
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let first = right < heap.count && heap[right].precedes(heap[left]) ? right : left
            guard heap[first].precedes(heap[parent]) else { return }
            heap.swapAt(first, parent)
            parent = first
        }
    }
}
