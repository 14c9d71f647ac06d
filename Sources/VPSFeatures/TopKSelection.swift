/// Reusable buffers that pick the k smallest entries of a distance row.
///
/// Insertion into a sorted k-slot buffer: O(n) compares plus O(k) per insertion, which is rare
/// once the buffer fills. Ties keep the lower index first; NaN distances are never selected.
struct TopKSelection {
    /// Slots.
    let k: Int
    /// Selected distances, ascending; `.infinity` in empty slots.
    private(set) var distances: [Float]
    /// Indices of the selected distances; -1 in empty slots.
    private(set) var indices: [Int32]
    /// Filled slots after the last `select`.
    private(set) var count = 0

    /// Buffers for `k` ≥ 1 slots.
    init(k: Int) {
        precondition(k >= 1, "k must be at least 1")
        self.k = k
        distances = [Float](repeating: .infinity, count: k)
        indices = [Int32](repeating: -1, count: k)
    }

    /// Resets the slots.
    mutating func reset() {
        for s in 0..<k {
            distances[s] = .infinity
            indices[s] = -1
        }
        count = 0
    }

    /// Offers one candidate (any order; call `reset` first).
    @inline(__always)
    mutating func offer(_ distance: Float, index: Int32) {
        guard distance < distances[k - 1] else { return }
        var s = k - 1
        while s > 0 && distances[s - 1] > distance {
            distances[s] = distances[s - 1]
            indices[s] = indices[s - 1]
            s -= 1
        }
        distances[s] = distance
        indices[s] = index
        if count < k { count += 1 }
    }

    /// Selects the k smallest of `row` (index = position in the row, plus `indexOffset`).
    mutating func select(from row: UnsafeBufferPointer<Float>, indexOffset: Int = 0) {
        reset()
        let n = row.count
        distances.withUnsafeMutableBufferPointer { d in
            indices.withUnsafeMutableBufferPointer { ix in
                var worst = Float.infinity
                var filled = 0
                for j in 0..<n {
                    let v = row[j]
                    if v < worst {
                        var s = k - 1
                        while s > 0 && d[s - 1] > v {
                            d[s] = d[s - 1]
                            ix[s] = ix[s - 1]
                            s -= 1
                        }
                        d[s] = v
                        ix[s] = Int32(truncatingIfNeeded: j + indexOffset)
                        worst = d[k - 1]
                        if filled < k { filled += 1 }
                    }
                }
                count = filled
            }
        }
    }
}
