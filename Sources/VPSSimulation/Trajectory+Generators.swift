import Foundation
import VPSGeometry

/// The walk, look-around and scan generators.
extension Trajectory {
    /// A slow, smooth head motion: a sum of sinusoids with random phases.
    struct Wobble {
        var terms: [(amplitude: Double, period: Double, phase: Double)]

        init(amplitudes: [Double], periods: [ClosedRange<Double>], using rng: inout SplitMix64) {
            terms = zip(amplitudes, periods).map { a, p in
                (a, p.lowerBound + (p.upperBound - p.lowerBound) * rng.nextUnit(), 2 * .pi * rng.nextUnit())
            }
        }

        func callAsFunction(_ t: Double) -> Double {
            terms.reduce(0) { $0 + $1.amplitude * sin(2 * .pi * t / $1.period + $1.phase) }
        }
    }

    /// A target for the walker and how close counts as reached.
    typealias Waypoint = (point: Vec2, radius: Double)

    /// The next stretch of a walk from `p`: usually a far, visible point in the same region;
    /// sometimes, through a portal, a point in a neighbouring region.
    static func nextLeg(_ area: WalkableArea, from p: Vec2, using rng: inout SplitMix64) -> [Waypoint] {
        let here = area.region(containing: p)
        let exits = area.portals.filter { $0.regionA == here || $0.regionB == here }
        if !exits.isEmpty && rng.nextUnit() < 0.35 {
            let portal = exits[rng.nextInt(below: exits.count)]
            let (near, far, other) =
                portal.regionA == here
                ? (portal.approachA, portal.approachB, portal.regionB)
                : (portal.approachB, portal.approachA, portal.regionA)
            return [(near, 0.15), (far, 0.15), (area.randomPoint(inRegion: other, using: &rng), 0.3)]
        }
        var best: Vec2?, bestScore = -Double.infinity
        for _ in 0..<40 {
            let q = area.randomPoint(inRegion: here, using: &rng)
            let d = (q - p).norm
            guard d > 1.0, area.isClear(from: p, to: q) else { continue }
            let score = min(d, 4) + rng.nextUnit()
            if score > bestScore {
                best = q
                bestScore = score
            }
        }
        return [(best ?? area.randomPoint(inRegion: here, using: &rng), 0.3)]
    }

    static func walkSamples(
        _ area: WalkableArea, duration: Double, dt: Double, using rng: inout SplitMix64
    )
        -> [Sample]
    {
        let start = area.randomPoint(using: &rng)
        var walker = Walker(
            position: start, heading: 2 * .pi * rng.nextUnit(), cruiseSpeed: 0.9 + 0.2 * rng.nextUnit())
        let height = 1.4 + 0.3 * rng.nextUnit()
        let pitchBase = radians(-6 - 8 * rng.nextUnit())
        let yawWobble = Wobble(amplitudes: [radians(12), radians(6)], periods: [5...9, 2.5...4], using: &rng)
        let pitchWobble = Wobble(amplitudes: [radians(4), radians(2)], periods: [4...7, 1.5...3], using: &rng)
        let rollWobble = Wobble(amplitudes: [radians(1.5)], periods: [3...6], using: &rng)
        var route = nextLeg(area, from: start, using: &rng)
        // Face the first target from the start.
        walker.heading = Walker.yaw(toward: route[0].point - start)
        var samples: [Sample] = []
        var sinceProgress = 0.0, stride = 0.0
        let count = Int((duration / dt + 1e-6).rounded(.down)) + 1
        for i in 0..<count {
            let t = Double(i) * dt
            let bob = 0.012 * sin(stride * .pi) * min(1, walker.speed / walker.cruiseSpeed)
            samples.append(
                Sample(
                    position: Vec3(walker.position.x, height + bob, walker.position.y),
                    yaw: walker.heading + yawWobble(t), pitch: pitchBase + pitchWobble(t), roll: rollWobble(t)))
            let remaining = walker.step(toward: route[0].point, dt: dt, stopping: false)
            stride += walker.speed * dt / 0.7
            sinceProgress += dt
            if remaining < route[0].radius || sinceProgress > 15 {
                route.removeFirst()
                sinceProgress = 0
                if route.isEmpty { route = nextLeg(area, from: walker.position, using: &rng) }
            }
        }
        return samples
    }

    static func lookAroundSamples(
        _ area: WalkableArea, duration: Double, dt: Double, using rng: inout SplitMix64
    )
        -> [Sample]
    {
        let p = area.randomPoint(using: &rng)
        let height = 1.4 + 0.3 * rng.nextUnit()
        let yaw0 = 2 * .pi * rng.nextUnit()
        let turnRate = radians(5 + 7 * rng.nextUnit()) * (rng.nextUnit() < 0.5 ? -1 : 1)
        let pan = Wobble(
            amplitudes: [radians(55 + 25 * rng.nextUnit()), radians(10)], periods: [10...16, 3...5], using: &rng)
        let tilt = Wobble(amplitudes: [radians(12), radians(4)], periods: [7...11, 2...3.5], using: &rng)
        let roll = Wobble(amplitudes: [radians(2)], periods: [4...7], using: &rng)
        let sway = Wobble(amplitudes: [0.03, 0.01], periods: [3...5, 1...2], using: &rng)
        let swayZ = Wobble(amplitudes: [0.02], periods: [4...6], using: &rng)
        let count = Int((duration / dt + 1e-6).rounded(.down)) + 1
        return (0..<count).map { i in
            let t = Double(i) * dt
            return Sample(
                position: Vec3(p.x + sway(t), height + 0.3 * swayZ(t * 1.3), p.y + swayZ(t)),
                yaw: yaw0 + turnRate * t + pan(t) - pan(0), pitch: radians(-6) + tilt(t), roll: roll(t))
        }
    }

    /// Stations for a scan: a grid of cells about 2.2 m wide over each region, visited row by row,
    /// each moved to a walkable point near its cell centre.
    static func scanStations(_ area: WalkableArea, using rng: inout SplitMix64) -> [(Vec2, Int)] {
        var stations: [(Vec2, Int)] = []
        for (index, r) in area.regions.enumerated() {
            let size = r.max - r.min
            // At least two stations along every side longer than 2 m, about 2.2 m apart.
            func cells(_ length: Double) -> Int { length < 2 ? 1 : max(2, Int((length / 2.2).rounded())) }
            let nx = cells(size.x), nz = cells(size.y)
            let cell = Vec2(size.x / Double(nx), size.y / Double(nz))
            for k in 0..<nz {
                for j in 0..<nx {
                    let i = k % 2 == 0 ? j : nx - 1 - j
                    let centre = r.min + Vec2((Double(i) + 0.5) * cell.x, (Double(k) + 0.5) * cell.y)
                    if area.contains(centre) {
                        stations.append((centre, index))
                        continue
                    }
                    var best: Vec2?
                    for _ in 0..<80 {
                        let q =
                            r.min + Vec2((Double(i) + rng.nextUnit()) * cell.x, (Double(k) + rng.nextUnit()) * cell.y)
                        if area.contains(q), best == nil || (q - centre).norm < (best! - centre).norm { best = q }
                    }
                    if let best { stations.append((best, index)) }
                }
            }
        }
        return stations
    }

    static func scanSamples(
        _ area: WalkableArea, maxDuration: Double?, dt: Double, using rng: inout SplitMix64
    )
        -> [Sample]
    {
        let stations = scanStations(area, using: &rng)
        guard let first = stations.first else {
            return [Sample(position: Vec3(0, 1.5, 0), yaw: 0, pitch: 0, roll: 0)]
        }
        let height = 1.45 + 0.15 * rng.nextUnit()
        let sweepRate = radians(24)
        let sweepPitch = radians(-8)
        var walker = Walker(position: first.0, heading: 2 * .pi * rng.nextUnit(), cruiseSpeed: 0.8)
        let limit = maxDuration.map { Int(($0 / dt + 1e-6).rounded(.down)) + 1 } ?? Int.max
        var samples: [Sample] = []
        func record(yaw: Double, pitch: Double) {
            guard samples.count < limit else { return }
            samples.append(
                Sample(position: Vec3(walker.position.x, height, walker.position.y), yaw: yaw, pitch: pitch, roll: 0))
        }
        var region = first.1
        for (n, station) in stations.enumerated() {
            // Walk to the station (through the portal when it is in another region).
            var route: [Waypoint] = []
            if station.1 != region,
                let portal = area.portals.first(where: {
                    ($0.regionA == region && $0.regionB == station.1)
                        || ($0.regionB == region && $0.regionA == station.1)
                })
            {
                route =
                    portal.regionA == region
                    ? [(portal.approachA, 0.15), (portal.approachB, 0.15)]
                    : [(portal.approachB, 0.15), (portal.approachA, 0.15)]
            }
            route.append((station.0, 0.05))
            region = station.1
            var elapsed = 0.0
            while let target = route.first, samples.count < limit, elapsed < 60 {
                record(yaw: walker.heading, pitch: sweepPitch)
                let stopping = route.count == 1
                let remaining = walker.step(toward: target.point, dt: dt, stopping: stopping)
                elapsed += dt
                if remaining < target.radius && (!stopping || walker.speed < 0.05) { route.removeFirst() }
            }
            // A full turn, nodding three times so the camera sees floor, walls and ceiling edges.
            let direction: Double = n % 2 == 0 ? 1 : -1
            let start = walker.heading
            let steps = Int((2 * .pi / sweepRate / dt).rounded())
            for s in 0..<steps {
                let turned = Double(s) * sweepRate * dt
                record(yaw: start + direction * turned, pitch: sweepPitch + radians(14) * sin(3 * turned))
                walker.step(toward: station.0, dt: dt, stopping: true)
            }
            walker.heading = start + direction * 2 * .pi
            walker.speed = 0
        }
        return samples.isEmpty
            ? [Sample(position: Vec3(first.0.x, height, first.0.y), yaw: 0, pitch: 0, roll: 0)] : samples
    }
}
