/// "Did you mean …?" for unknown keys: the known key at the smallest edit distance, if
/// it is close enough to be a typo (at most 2 edits, or 3 for long keys) rather than a
/// different word.
public enum KeySuggestion {
    public static func closest(to key: String, among known: [String]) -> String? {
        let lowered = key.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(Array(lowered.utf8), Array(candidate.utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let tolerance = key.count >= 12 ? 3 : 2
        return best.distance <= tolerance ? best.name : nil
    }

    /// Levenshtein distance, counting a swap of two neighbours as one edit (the commonest
    /// typo: `fee_pmm`).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }
}
