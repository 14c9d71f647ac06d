import VPSGeometry

#if canImport(simd)
import simd
#endif

/// Conversions between the public single-precision pose types and VPSGeometry's double types.
enum PoseConversion {
    static func vec3(_ v: SIMD3<Float>) -> Vec3 { Vec3(Double(v.x), Double(v.y), Double(v.z)) }

    static func float3(_ v: Vec3) -> SIMD3<Float> { SIMD3(Float(v.x), Float(v.y), Float(v.z)) }

    static func quaternion(_ q: simd_quatf) -> Quaternion {
        let v = q.vector
        return Quaternion(x: Double(v.x), y: Double(v.y), z: Double(v.z), w: Double(v.w)).normalized
    }

    static func quatf(_ q: Quaternion) -> simd_quatf {
        simd_quatf(ix: Float(q.x), iy: Float(q.y), iz: Float(q.z), r: Float(q.w))
    }

    static func rigid(_ pose: Pose) -> Rigid3 {
        Rigid3(rotation: quaternion(pose.rotation), translation: vec3(pose.position))
    }

    static func pose(_ t: Rigid3) -> Pose { Pose(position: float3(t.translation), rotation: quatf(t.rotation)) }
}
