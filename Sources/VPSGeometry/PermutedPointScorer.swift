/// `AbsolutePoseEstimator`'s `RansacScorer`: its points and observations copied in a run's visiting
/// order, coordinate by coordinate, so that a chunk of data is scored with vector arithmetic over
/// contiguous memory instead of datum by datum through the order.
///
/// Every lane computes exactly what `AbsolutePoseEstimator.squaredError` computes, operation for
/// operation (`R·X + t` row by row, then `1 / z`), so the errors are the same bit for bit.
/// Building costs O(n) and 5 × (n + 8) doubles.
public struct PermutedPointScorer: RansacScorer {
    public typealias Model = CameraPose

    /// World coordinates and normalized observations in visiting order, padded by one chunk.
    private let x: [Double], y: [Double], z: [Double], u: [Double], v: [Double]

    /// The scorer of `points` and `observations` visited in `order`.
    public init(points: [Vec3], observations: [Vec2], order: [Int]) {
        let padded = order.count + RansacScorerChunk.size
        var x = [Double](repeating: 0, count: padded), y = x, z = x, u = x, v = x
        for (position, index) in order.enumerated() {
            let p = points[index], o = observations[index]
            x[position] = p.x
            y[position] = p.y
            z[position] = p.z
            u[position] = o.x
            v[position] = o.y
        }
        self.x = x
        self.y = y
        self.z = z
        self.u = u
        self.v = v
    }

    public func squaredErrors(
        _ model: CameraPose, from position: Int, count: Int, into errors: UnsafeMutablePointer<Double>
    ) {
        typealias Lanes = SIMD8<Double>
        precondition(count <= Lanes.scalarCount && position >= 0 && position + Lanes.scalarCount <= x.count)
        func load(_ array: [Double]) -> Lanes {
            array.withUnsafeBufferPointer {
                UnsafeRawPointer($0.baseAddress! + position).loadUnaligned(as: Lanes.self)
            }
        }
        let px = load(x), py = load(y), pz = load(z)
        let r = model.rotation, t = model.translation
        // `Mat3 * Vec3` is the rows' dot products, each (a·x + b·y) + c·z; then `+ t`.
        let cx = (r.r0.x * px + r.r0.y * py) + r.r0.z * pz + t.x
        let cy = (r.r1.x * px + r.r1.y * py) + r.r1.z * pz + t.y
        let cz = (r.r2.x * px + r.r2.y * py) + r.r2.z * pz + t.z
        let iz = 1 / cz
        let dx = cx * iz - load(u)
        let dy = cy * iz - load(v)
        // A point not in front of the camera (z ≤ 0 or NaN) cannot be explained. All lanes are
        // stored (the buffer holds a chunk); the caller reads `count`.
        let e = (dx * dx + dy * dy).replacing(with: .infinity, where: .!(cz .> 0))
        UnsafeMutableRawPointer(errors).storeBytes(of: e, as: Lanes.self)
    }
}
