/// The inner loops of matching: one query against a contiguous run of train descriptors.
///
/// Each kernel writes one distance per train descriptor into `row`; selection (top-k, column
/// minima) happens in a second, cheap pass over the row, the same split OpenCV's `BFMatcher` uses
/// (`batchDistance`). Binary distances are exact small integers stored as `Float`; float
/// distances are *squared* Euclidean.
enum DistanceKernels {
    /// Hamming distances of the 256-bit `query` to `count` train descriptors.
    ///
    /// Four words unrolled; `nonzeroBitCount` lowers to POPCNT where the target has it and to a
    /// SWAR sequence on baseline x86-64.
    @inline(__always)
    static func hammingRow(
        query: UnsafePointer<UInt64>, train: UnsafePointer<UInt64>, count: Int, into row: UnsafeMutablePointer<Float>
    ) {
        let q0 = query[0], q1 = query[1], q2 = query[2], q3 = query[3]
        var t = train
        for j in 0..<count {
            let bits =
                (q0 ^ t[0]).nonzeroBitCount &+ (q1 ^ t[1]).nonzeroBitCount &+ (q2 ^ t[2]).nonzeroBitCount
                &+ (q3 ^ t[3]).nonzeroBitCount
            row[j] = Float(bits)
            t += BinaryDescriptors.wordsPerDescriptor
        }
    }

    /// Hamming distance between two 256-bit descriptors given by pointers to their first words.
    @inline(__always)
    static func hamming(_ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>) -> Int {
        (a[0] ^ b[0]).nonzeroBitCount &+ (a[1] ^ b[1]).nonzeroBitCount &+ (a[2] ^ b[2]).nonzeroBitCount
            &+ (a[3] ^ b[3]).nonzeroBitCount
    }

    /// Squared Euclidean distances of `query` to `count` train descriptors of `dimension` floats
    /// (a multiple of 16).
    ///
    /// SIMD16 lanes with two fused multiply-add accumulators; the 128-float SIFT case keeps the
    /// query in registers.
    @inline(__always)
    static func squaredL2Row(
        query: UnsafePointer<Float>, train: UnsafePointer<Float>, count: Int, dimension: Int,
        into row: UnsafeMutablePointer<Float>
    ) {
        let q = UnsafeRawPointer(query)
        let t = UnsafeRawPointer(train)
        let stride = dimension * MemoryLayout<Float>.size
        if dimension == 128 {
            let q0 = q.loadUnaligned(fromByteOffset: 0, as: SIMD16<Float>.self)
            let q1 = q.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
            let q2 = q.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self)
            let q3 = q.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
            let q4 = q.loadUnaligned(fromByteOffset: 256, as: SIMD16<Float>.self)
            let q5 = q.loadUnaligned(fromByteOffset: 320, as: SIMD16<Float>.self)
            let q6 = q.loadUnaligned(fromByteOffset: 384, as: SIMD16<Float>.self)
            let q7 = q.loadUnaligned(fromByteOffset: 448, as: SIMD16<Float>.self)
            for j in 0..<count {
                let p = t + j * stride
                let d0 = q0 - p.loadUnaligned(fromByteOffset: 0, as: SIMD16<Float>.self)
                let d1 = q1 - p.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
                let d2 = q2 - p.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self)
                let d3 = q3 - p.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
                let d4 = q4 - p.loadUnaligned(fromByteOffset: 256, as: SIMD16<Float>.self)
                let d5 = q5 - p.loadUnaligned(fromByteOffset: 320, as: SIMD16<Float>.self)
                let d6 = q6 - p.loadUnaligned(fromByteOffset: 384, as: SIMD16<Float>.self)
                let d7 = q7 - p.loadUnaligned(fromByteOffset: 448, as: SIMD16<Float>.self)
                var a = d0 * d0
                var b = d1 * d1
                a = a.addingProduct(d2, d2)
                b = b.addingProduct(d3, d3)
                a = a.addingProduct(d4, d4)
                b = b.addingProduct(d5, d5)
                a = a.addingProduct(d6, d6)
                b = b.addingProduct(d7, d7)
                row[j] = (a + b).sum()
            }
        } else {
            for j in 0..<count {
                let p = t + j * stride
                var a = SIMD16<Float>()
                var offset = 0
                while offset < stride {
                    let d =
                        q.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
                        - p.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
                    a = a.addingProduct(d, d)
                    offset += 64
                }
                row[j] = a.sum()
            }
        }
    }
}
