/// `GeneralizedAbsolutePoseEstimator`'s `RansacScorer`: like `PermutedPointScorer`, with each datum's
/// camera-from-rig pose copied beside it, so that a chunk of data seen by different cameras of the
/// rig is still scored in vector lanes over contiguous memory.
///
/// Every lane computes exactly what `GeneralizedAbsolutePoseEstimator.squaredError` computes,
/// operation for operation (`R·X + t`, then the camera's `R_c·(…) + t_c`, row by row), so the
/// errors are the same bit for bit. Building costs O(n) and 17 × (n + 8) doubles.
public struct PermutedRigScorer: RansacScorer {
    public typealias Model = CameraPose

    /// Entries per column: the data plus one chunk of padding.
    private let stride: Int
    /// Seventeen columns of `stride` doubles, each in visiting order: the world point's x, y, z, the
    /// observation's u, v, then the datum's camera-from-rig rotation (row-major) and translation.
    private let columns: [Double]

    /// The scorer of `estimator`'s data visited in `order`.
    public init(_ estimator: GeneralizedAbsolutePoseEstimator, order: [Int]) {
        let stride = order.count + RansacScorerChunk.size
        var columns = [Double](repeating: 0, count: 17 * stride)
        for (position, index) in order.enumerated() {
            let p = estimator.points[index], o = estimator.observations[index]
            let camera = estimator.camFromRig[estimator.cameraIndices[index]]
            let r = camera.rotation, t = camera.translation
            func set(_ column: Int, _ value: Double) { columns[column * stride + position] = value }
            set(0, p.x)
            set(1, p.y)
            set(2, p.z)
            set(3, o.x)
            set(4, o.y)
            for k in 0..<3 {
                set(5 + k, r.r0[k])
                set(8 + k, r.r1[k])
                set(11 + k, r.r2[k])
                set(14 + k, t[k])
            }
        }
        self.stride = stride
        self.columns = columns
    }

    public func squaredErrors(
        _ model: CameraPose, from position: Int, count: Int, into errors: UnsafeMutablePointer<Double>
    ) {
        typealias Lanes = SIMD8<Double>
        precondition(count <= Lanes.scalarCount && position >= 0 && position + Lanes.scalarCount <= stride)
        let e: Lanes = columns.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress! + position)
            func load(_ column: Int) -> Lanes {
                base.loadUnaligned(fromByteOffset: 8 * column * stride, as: Lanes.self)
            }
            let px = load(0), py = load(1), pz = load(2)
            let r = model.rotation, t = model.translation
            // The rig frame: `Mat3 * Vec3` is the rows' dot products, each (a·x + b·y) + c·z; then `+ t`.
            let qx = (r.r0.x * px + r.r0.y * py) + r.r0.z * pz + t.x
            let qy = (r.r1.x * px + r.r1.y * py) + r.r1.z * pz + t.y
            let qz = (r.r2.x * px + r.r2.y * py) + r.r2.z * pz + t.z
            // The datum's camera, the same way.
            let cx = (load(5) * qx + load(6) * qy) + load(7) * qz + load(14)
            let cy = (load(8) * qx + load(9) * qy) + load(10) * qz + load(15)
            let cz = (load(11) * qx + load(12) * qy) + load(13) * qz + load(16)
            let iz = 1 / cz
            let dx = cx * iz - load(3)
            let dy = cy * iz - load(4)
            // A point not in front of its camera (z ≤ 0 or NaN) cannot be explained.
            return (dx * dx + dy * dy).replacing(with: .infinity, where: .!(cz .> 0))
        }
        // All lanes are stored (the buffer holds a chunk); the caller reads `count`.
        UnsafeMutableRawPointer(errors).storeBytes(of: e, as: Lanes.self)
    }
}
