import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSImaging
import VPSSimulation

/// The SDK's pure-Swift JPEG encoder against libjpeg-turbo's decoder (the engine's codec).
@Suite struct JPEGEncoderTests {
    /// A rendered room frame: textured walls, posters and shading, like a phone's view.
    static let rendered: RGBImage = {
        let venue = Venue.generate(.room, seed: 11, texelScale: 2)
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        let trajectory = Trajectory.generate(.walk, in: venue, duration: 10, seed: 11)
        let pose = CameraPose(CameraAxes.cvPose(fromARKit: trajectory.worldFromCamera(at: 3)).inverse)
        return Renderer(venue: venue).render(camera: camera, camFromWorld: pose)
    }()

    /// Peak signal-to-noise ratio in dB over all three channels.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    static func roundTrip(
        _ image: RGBImage, quality: Int, sampling: JPEGEncoder.ChromaSampling?
    ) throws -> (Double, Int) {
        let encoder = JPEGEncoder(quality: quality, chromaSampling: sampling)
        let jpeg = try #require(encoder.encode(rgb: Data(image.pixels), width: image.width, height: image.height))
        let decoded = try JPEG.decodeRGB(jpeg)
        #expect(decoded.width == image.width && decoded.height == image.height)
        return (psnr(image.pixels, decoded.pixels), jpeg.count)
    }

    /// The floor: PSNR ≥ 38 dB at quality 90 (the SDK's default) on a rendered frame, decoded by
    /// libjpeg-turbo; each sampling within half a dB of libjpeg-turbo's own encoder on the same tables
    /// (its integer DCT against our float one).
    @Test func quality90IsAbove38dBThroughLibjpegTurbo() throws {
        let (p90, bytes90) = try Self.roundTrip(Self.rendered, quality: 90, sampling: nil)
        let (p444, _) = try Self.roundTrip(Self.rendered, quality: 90, sampling: .full)
        let (p420, bytes420) = try Self.roundTrip(Self.rendered, quality: 90, sampling: .halved)
        func turbo(_ s: JPEG.ChromaSubsampling) throws -> Double {
            Self.psnr(
                Self.rendered.pixels,
                try JPEG.decodeRGB(try JPEG.encode(Self.rendered, quality: 90, chromaSubsampling: s)).pixels)
        }
        let (t444, t420) = (try turbo(.chroma444), try turbo(.chroma420))
        print(
            "JPEG q90 640×480 render: default (4:4:4) \(p90) dB \(bytes90) B, 4:2:0 \(p420) dB \(bytes420) B; "
                + "libjpeg-turbo 4:4:4 \(t444) dB, 4:2:0 \(t420) dB")
        #expect(p90 >= 38)
        #expect(p90 == p444)
        #expect(abs(p444 - t444) < 0.5)
        #expect(abs(p420 - t420) < 0.5)
    }

    /// Quality orders fidelity and size; odd sizes pad by replication; one-pixel and one-row images work.
    @Test func qualitySizesAndEdges() throws {
        var rng = SplitMix64(seed: 7)
        var pixels = [UInt8](repeating: 0, count: 37 * 23 * 3)
        for i in 0..<pixels.count { pixels[i] = UInt8(truncatingIfNeeded: rng.next() >> 56) / 2 + UInt8(i % 97) }
        let noisy = RGBImage(width: 37, height: 23, pixels: pixels)
        let (low, lowBytes) = try Self.roundTrip(noisy, quality: 50, sampling: .halved)
        let (high, highBytes) = try Self.roundTrip(noisy, quality: 95, sampling: .halved)
        #expect(high > low && highBytes > lowBytes)
        for (w, h) in [(1, 1), (1, 17), (33, 1), (16, 16), (17, 15)] {
            let image = RGBImage(width: w, height: h, fill: (200, 30, 90))
            for sampling in [JPEGEncoder.ChromaSampling.halved, .full] {
                let (p, _) = try Self.roundTrip(image, quality: 90, sampling: sampling)
                #expect(p > 38, "\(w)×\(h) \(sampling)")
            }
        }
        // Quality 100 on a flat image is lossless up to colour rounding.
        let (flat, _) = try Self.roundTrip(
            RGBImage(width: 24, height: 8, fill: (10, 120, 250)), quality: 100, sampling: .full)
        #expect(flat > 45)
    }

    @Test func invalidInputsAreRefused() {
        let encoder = JPEGEncoder()
        #expect(encoder.encode(rgb: Data(), width: 0, height: 0) == nil)
        #expect(encoder.encode(rgb: Data(count: 11), width: 2, height: 2) == nil)
        #expect(encoder.encode(rgb: Data(count: 12), width: -2, height: 2) == nil)
        #expect(encoder.encode(rgb: Data(count: 12), width: 2, height: 2) != nil)
    }
}

/// The SDK's pure-Swift decoder against libjpeg-turbo's encoder, and against its own encoder.
@Suite struct JPEGDecoderTests {
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { JPEGEncoderTests.psnr(a, b) }

    /// Files libjpeg-turbo writes (4:4:4, 4:2:2, 4:2:0, gray) decode to within a fraction of a dB of what
    /// libjpeg-turbo itself decodes (it upsamples chroma with a triangle filter, we replicate).
    @Test func decodesLibjpegTurboFiles() throws {
        let image = JPEGEncoderTests.rendered
        for sampling in JPEG.ChromaSubsampling.allCases {
            let file = try JPEG.encode(image, quality: 90, chromaSubsampling: sampling)
            let turbo = try JPEG.decodeRGB(file)
            let ours = try JPEGDecoder().decode(Data(file))
            #expect(ours.width == image.width && ours.height == image.height)
            let toOriginal = Self.psnr(ours.rgb, image.pixels)
            let turboToOriginal = Self.psnr(turbo.pixels, image.pixels)
            print("decoder \(sampling): \(toOriginal) dB (libjpeg-turbo \(turboToOriginal) dB)")
            #expect(toOriginal > turboToOriginal - 1.5, "\(sampling)")
            #expect(Self.psnr(ours.rgb, turbo.pixels) > 38, "\(sampling)")
        }
        let gray = try JPEG.encode(image.gray, quality: 90)
        let ours = try JPEGDecoder().decode(Data(gray))
        let turbo = try JPEG.decodeRGB(gray)
        #expect(Self.psnr(ours.rgb, turbo.pixels) > 50)
    }

    /// Our encoder's files read back by our decoder; restart markers; refusals.
    @Test func roundTripAndRefusals() throws {
        let image = JPEGEncoderTests.rendered
        let codec = SwiftImageCodec()
        let file = try #require(
            codec.encodeJPEG(RGBPixels(data: Data(image.pixels), width: image.width, height: image.height), quality: 90)
        )
        let back = try #require(codec.decodeJPEG(file))
        #expect(back.width == 640 && back.height == 480)
        #expect(Self.psnr([UInt8](back.data), image.pixels) > 40)
        // Restart intervals: libjpeg-turbo and our decoder read them, to the same pixels.
        var restarting = JPEGEncoder(quality: 90)
        restarting.restartInterval = 7
        let withRestarts = try #require(restarting.encode(rgb: Data(image.pixels), width: 640, height: 480))
        #expect(withRestarts.count > file.count)
        let turbo = try JPEG.decodeRGB(withRestarts)
        let ours = try JPEGDecoder().decode(withRestarts)
        #expect(ours.rgb == [UInt8](back.data))
        #expect(Self.psnr(turbo.pixels, ours.rgb) > 50)
        #expect(throws: JPEGDecoder.Failure.self) { try JPEGDecoder().decode(Data([0xFF, 0xD8, 0xFF])) }
        #expect(throws: JPEGDecoder.Failure.self) { try JPEGDecoder().decode(Data("not a jpeg".utf8)) }
        #expect(throws: JPEGDecoder.Failure.self) { try JPEGDecoder(maxSide: 100).decode(file) }
        // Truncating the scan never crashes.
        for cut in stride(from: 700, to: file.count, by: 30000) { _ = try? JPEGDecoder().decode(file.prefix(cut)) }
    }
}
