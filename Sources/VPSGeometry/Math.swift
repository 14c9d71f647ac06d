#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin wrappers so files can call libm without each importing the platform module.
@usableFromInline func logD(_ x: Double) -> Double { log(x) }
@usableFromInline func cosD(_ x: Double) -> Double { cos(x) }
@usableFromInline func acosD(_ x: Double) -> Double { acos(x) }
@usableFromInline func log1pD(_ x: Double) -> Double { log1p(x) }
@usableFromInline func atan2D(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@usableFromInline func powD(_ x: Double, _ y: Double) -> Double { pow(x, y) }
