// `make bench-jpeg`: the SDK's pure-Swift JPEG codec beside libjpeg-turbo (the engine's codec), on the
// same rendered frames, in the same run; every result is decoded and checked.
import Dispatch
import Foundation
import MultiSetSDK
import VPSGeometry
import VPSImaging
import VPSSimulation

/// A rendered room frame of `width × height`, like a phone's view.
func renderedFrame(width: Int, height: Int) -> RGBImage {
    let venue = Venue.generate(.room, seed: 11, texelScale: 1)
    let f = Double(width) * 0.78
    let camera = Camera(fx: f, fy: f, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
    let trajectory = Trajectory.generate(.walk, in: venue, duration: 10, seed: 11)
    let pose = CameraPose(CameraAxes.cvPose(fromARKit: trajectory.worldFromCamera(at: 3)).inverse)
    return Renderer(venue: venue).render(camera: camera, camFromWorld: pose)
}

func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    var sum = 0.0
    for i in 0..<min(a.count, b.count) {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// Median milliseconds of `body` over `runs` runs after two warm-up runs.
func time(runs: Int, _ body: () -> Void) -> Double {
    body()
    body()
    var samples: [Double] = []
    for _ in 0..<runs {
        let t0 = DispatchTime.now().uptimeNanoseconds
        body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }
    return samples.sorted()[samples.count / 2]
}

struct Row: Codable {
    var case_: String
    var oursMs: Double
    var turboMs: Double
    var ratio: Double
    var oursBytes: Int
    var turboBytes: Int
    var oursPSNR: Double
    var turboPSNR: Double
}

var failures: [String] = []
var rows: [Row] = []
let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 15
let cpu =
    (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
    .first { $0.hasPrefix("model name") }.map {
        String($0.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces)
    }
    ?? "unknown CPU"
print("JPEG encode, one thread, median of \(runs) runs (\(cpu))")
print("case                         ours ms  turbo ms  ratio   ours B   turbo B  ours dB  turbo dB")
for (w, h) in [(960, 720), (1920, 1440)] {
    let image = renderedFrame(width: w, height: h)
    let data = Data(image.pixels)
    for (label, sampling, turboSampling) in [
        ("q90 4:4:4 (SDK default)", JPEGEncoder.ChromaSampling.full, JPEG.ChromaSubsampling.chroma444),
        ("q90 4:2:0", .halved, .chroma420),
    ] {
        let encoder = JPEGEncoder(quality: 90, chromaSampling: sampling)
        var ours = Data()
        var turbo: [UInt8] = []
        let oursMs = time(runs: runs) { ours = encoder.encode(rgb: data, width: w, height: h) ?? Data() }
        let turboMs = time(runs: runs) {
            turbo = (try? JPEG.encode(image, quality: 90, chromaSubsampling: turboSampling)) ?? []
        }
        guard let oursBack = try? JPEG.decodeRGB(ours), let turboBack = try? JPEG.decodeRGB(turbo) else {
            failures.append("\(w)×\(h) \(label): a file did not decode")
            continue
        }
        let row = Row(
            case_: "\(w)×\(h) \(label)", oursMs: oursMs, turboMs: turboMs, ratio: oursMs / turboMs,
            oursBytes: ours.count, turboBytes: turbo.count, oursPSNR: psnr(oursBack.pixels, image.pixels),
            turboPSNR: psnr(turboBack.pixels, image.pixels))
        if sampling == .full && row.oursPSNR < 38 { failures.append("\(row.case_): \(row.oursPSNR) dB < 38 dB") }
        rows.append(row)
        print(
            String(
                format: "%-28@ %7.2f  %8.2f  %5.2f× %8d  %8d  %7.2f  %8.2f", row.case_ as NSString, row.oursMs,
                row.turboMs, row.ratio, row.oursBytes, row.turboBytes, row.oursPSNR, row.turboPSNR))
    }
}

// Decoding (the SDK's decoder is only used for JPEG frames that must be turned or scaled).
let decodeImage = renderedFrame(width: 960, height: 720)
let file = Data(try JPEG.encode(decodeImage, quality: 90, chromaSubsampling: .chroma420))
let oursDecodeMs = time(runs: runs) { _ = try? JPEGDecoder().decode(file) }
let turboDecodeMs = time(runs: runs) { _ = try? JPEG.decodeRGB(file) }
print(
    String(
        format: "decode 960×720 q90 4:2:0: ours %.2f ms, libjpeg-turbo %.2f ms, ratio %.2f×", oursDecodeMs,
        turboDecodeMs, oursDecodeMs / turboDecodeMs))

// A full ARKit-sized frame through the codec the SDK uses on Linux (the SDK itself scales to 960 px first).
let sensor = renderedFrame(width: 1920, height: 1440)
let codec = SwiftImageCodec()
let full = RGBPixels(data: Data(sensor.pixels), width: 1920, height: 1440)
let fullMs = time(runs: runs) { _ = codec.encodeJPEG(full, quality: 90) }
print(String(format: "SwiftImageCodec.encodeJPEG of a 1920×1440 frame at quality 90: %.2f ms", fullMs))

let out = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "bench/results/jpeg.json")
try? FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
struct Report: Codable {
    var cpu: String
    var runs: Int
    var encode: [Row]
    var decodeOursMs: Double
    var decodeTurboMs: Double
}
try encoder.encode(
    Report(cpu: cpu, runs: runs, encode: rows, decodeOursMs: oursDecodeMs, decodeTurboMs: turboDecodeMs)
).write(to: out)
print("wrote \(out.path)")
if !failures.isEmpty {
    for f in failures { FileHandle.standardError.write(Data("bench-jpeg: \(f)\n".utf8)) }
    exit(1)
}
