import Foundation
import VPSGeometry
import VPSTestSupport

@testable import VPSImaging

/// Procedural test images and comparison helpers shared by the imaging tests.
enum TestImages {
    /// A textured colour image: smooth gradients, random flat rectangles (sharp edges) and mild
    /// Gaussian noise, reproducible from `rng`.
    static func textured(width: Int, height: Int, rng: inout SplitMix64, rectangles: Int = 12) -> RGBImage {
        var channels = [[Double]](repeating: [Double](repeating: 0, count: width * height), count: 3)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(max(width - 1, 1))
                let v = Double(y) / Double(max(height - 1, 1))
                channels[0][y * width + x] = 40 + 170 * u
                channels[1][y * width + x] = 30 + 180 * v
                channels[2][y * width + x] = 128 + 60 * sin(6 * u + 4 * v)
            }
        }
        for _ in 0..<rectangles {
            let rectWidth = 4 + rng.nextInt(below: max(width / 3, 1))
            let rectHeight = 4 + rng.nextInt(below: max(height / 3, 1))
            let left = rng.nextInt(below: max(width - rectWidth, 1))
            let top = rng.nextInt(below: max(height - rectHeight, 1))
            let colour = (0..<3).map { _ in rng.uniform(30...220) }
            for y in top..<min(top + rectHeight, height) {
                for x in left..<min(left + rectWidth, width) {
                    for c in 0..<3 { channels[c][y * width + x] = colour[c] }
                }
            }
        }
        var pixels = [UInt8](repeating: 0, count: 3 * width * height)
        for i in 0..<(width * height) {
            for c in 0..<3 {
                pixels[3 * i + c] = roundedByte(channels[c][i] + 2 * rng.gaussian())
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Uniformly random pixels.
    static func randomGray(width: Int, height: Int, rng: inout SplitMix64) -> GrayImage {
        GrayImage(
            width: width, height: height, pixels: (0..<(width * height)).map { _ in UInt8(rng.nextInt(below: 256)) })
    }

    /// Uniformly random pixels.
    static func randomRGB(width: Int, height: Int, rng: inout SplitMix64) -> RGBImage {
        RGBImage(
            width: width, height: height, pixels: (0..<(3 * width * height)).map { _ in UInt8(rng.nextInt(below: 256)) }
        )
    }

    /// Peak signal-to-noise ratio in dB between two equally long sample arrays.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var squared = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            squared += d * d
        }
        let mse = squared / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// A directory for files written by one test, created fresh.
    static func temporaryDirectory(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "VPSImagingTests-\(name)-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Marker-segment offsets in a JPEG stream, for building corrupt variants.
enum JPEGSegments {
    /// Offset of the first `FF marker` segment (skipping segments before it), or nil.
    static func offset(of marker: UInt8, in jpeg: [UInt8]) -> Int? {
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            let current = jpeg[index + 1]
            if current == marker { return index }
            if current == 0xDA { return nil }
            index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
        }
        return nil
    }

    /// Offset of the first entropy-coded byte (just after the SOS segment).
    static func entropyStart(in jpeg: [UInt8]) -> Int {
        let sos = offset(of: 0xDA, in: jpeg)!
        return sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
    }

    /// A copy of `jpeg` whose first SOF0 segment declares `width` × `height`.
    static func withFrameSize(_ jpeg: [UInt8], width: Int, height: Int) -> [UInt8] {
        var copy = jpeg
        let sof = offset(of: 0xC0, in: jpeg)!
        copy[sof + 5] = UInt8(height >> 8)
        copy[sof + 6] = UInt8(height & 0xFF)
        copy[sof + 7] = UInt8(width >> 8)
        copy[sof + 8] = UInt8(width & 0xFF)
        return copy
    }
}
