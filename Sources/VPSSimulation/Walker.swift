import Foundation
import VPSGeometry

/// A simulated pedestrian on the ground plane: turns towards its target at a bounded rate, slows
/// down for sharp turns, accelerates and decelerates smoothly.
///
/// Positions are `Vec2(x, z)`; `heading` is the yaw of the walking direction (0 walks along −Z,
/// the ARKit convention), kept continuous (not wrapped) so samples interpolate.
struct Walker {
    var position: Vec2
    var heading: Double
    var speed = 0.0
    /// Cruising speed, metres per second.
    let cruiseSpeed: Double
    /// Radians per second.
    let maxTurnRate = 1.6
    /// Metres per second squared.
    let acceleration = 1.2

    /// The unit walking direction for a yaw.
    static func direction(_ yaw: Double) -> Vec2 { Vec2(-sin(yaw), -cos(yaw)) }

    /// The yaw that faces along `d`.
    static func yaw(toward d: Vec2) -> Double { atan2(-d.x, -d.y) }

    /// `a` wrapped to (−π, π].
    static func wrap(_ a: Double) -> Double {
        var x = a.truncatingRemainder(dividingBy: 2 * .pi)
        if x > .pi { x -= 2 * .pi }
        if x <= -.pi { x += 2 * .pi }
        return x
    }

    /// Advances `dt` seconds towards `target`; with `stopping`, brakes to stand at the target.
    /// Returns the remaining distance.
    @discardableResult
    mutating func step(toward target: Vec2, dt: Double, stopping: Bool) -> Double {
        let d = target - position
        let distance = d.norm
        var desiredSpeed = 0.0
        if distance > 1e-3 {
            let error = Walker.wrap(Walker.yaw(toward: d) - heading)
            heading += min(max(error, -maxTurnRate * dt), maxTurnRate * dt)
            desiredSpeed = cruiseSpeed * max(0.12, cos(error))
            if stopping { desiredSpeed = min(desiredSpeed, (2 * acceleration * distance).squareRoot()) }
        }
        speed += min(max(desiredSpeed - speed, -acceleration * dt), acceleration * dt)
        let stepLength = stopping ? min(speed * dt, distance) : speed * dt
        position += Walker.direction(heading) * stepLength
        return (target - position).norm
    }
}
