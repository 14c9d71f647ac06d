import Foundation
import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSImaging

@Suite struct PNGTests {
    @Test func grayAndRGBRoundTripExactly() throws {
        var rng = SplitMix64(testName: "PNGTests.grayAndRGBRoundTripExactly")
        for (width, height) in [(1, 1), (33, 17), (64, 48)] {
            let gray = TestImages.randomGray(width: width, height: height, rng: &rng)
            let rgb = TestImages.randomRGB(width: width, height: height, rng: &rng)
            let grayBytes = try PNG.encode(gray)
            let rgbBytes = try PNG.encode(rgb, compressionLevel: 9)
            #expect(try PNG.decodeGray(grayBytes) == gray)
            #expect(try PNG.decodeRGB(rgbBytes) == rgb)
            // Cross conversions: gray expands to equal channels, colour reduces to luma.
            #expect(try PNG.decodeRGB(grayBytes) == RGBImage(gray))
            #expect(try PNG.decodeGray(rgbBytes) == rgb.gray)
            #expect(try PNG.size(of: rgbBytes) == (width: width, height: height))
        }
        print("libpng \(PNG.libraryVersion)")
    }

    @Test func filesRoundTrip() throws {
        let directory = TestImages.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var rng = SplitMix64(testName: "PNGTests.filesRoundTrip")
        let rgb = TestImages.textured(width: 50, height: 40, rng: &rng)
        try PNG.write(rgb, toFile: directory + "/rgb.png")
        try PNG.write(rgb.gray, toFile: directory + "/gray.png", compressionLevel: 1)
        #expect(try PNG.readRGB(fromFile: directory + "/rgb.png") == rgb)
        #expect(try PNG.readGray(fromFile: directory + "/gray.png") == rgb.gray)
        #expect(throws: ImagingError.self) { try PNG.write(rgb, toFile: directory + "/no/such/dir/x.png") }
        #expect(throws: ImagingError.self) { try PNG.readRGB(fromFile: directory + "/missing.png") }
    }

    @Test func invalidPNGDataThrows() throws {
        var rng = SplitMix64(testName: "PNGTests.invalidPNGDataThrows")
        let image = TestImages.randomRGB(width: 20, height: 10, rng: &rng)
        let png = try PNG.encode(image)
        var badCRC = png
        badCRC[29] ^= 0xFF  // The IHDR CRC (bytes 29...32).
        var badData = png
        badData[png.count - 20] ^= 0xFF  // Inside the compressed IDAT stream or its CRC.
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "EMPTY_IMAGE_DATA"),
            ("JPEG bytes", try JPEG.encode(image), "NOT_A_PNG"),
            ("signature only", Array(png.prefix(8)), "PNG_FAILED"),
            ("truncated", Array(png.prefix(png.count / 2)), "PNG_FAILED"),
            ("no IEND", Array(png.dropLast(12)), "PNG_FAILED"),
            ("bad IHDR CRC", badCRC, "PNG_FAILED"),
            ("corrupt IDAT", badData, "PNG_FAILED"),
        ]
        for (name, bytes, code) in cases {
            do {
                _ = try PNG.decodeRGB(bytes)
                Issue.record("\(name): decoded without error")
            } catch {
                #expect(error.code == code, "\(name): \(error)")
            }
        }
        #expect(throws: ImagingError.imageTooLarge(width: 20, height: 10, limit: 16)) {
            try PNG.decodeGray(png, maxSide: 16)
        }
        #expect(throws: ImagingError.invalidImageSize(width: 0, height: 3)) {
            try PNG.encode(GrayImage(width: 0, height: 3))
        }
        #expect(throws: ImagingError.self) { try PNG.encode(GrayImage(width: 2, height: 2), compressionLevel: 10) }
    }

    @Test func mutatedPNGsNeverCrash() throws {
        var rng = SplitMix64(testName: "PNGTests.mutatedPNGsNeverCrash")
        let png = try PNG.encode(TestImages.textured(width: 24, height: 16, rng: &rng))
        var codes: [String: Int] = [:]
        for _ in 0..<300 {
            var bytes = png
            switch rng.nextInt(below: 3) {
            case 0: bytes[8 + rng.nextInt(below: bytes.count - 8)] ^= UInt8(1 + rng.nextInt(below: 255))
            case 1: bytes.removeLast(rng.nextInt(below: bytes.count))
            default: bytes.insert(UInt8(rng.nextInt(below: 256)), at: 8 + rng.nextInt(below: bytes.count - 8))
            }
            do {
                let image = try PNG.decodeRGB(bytes, maxSide: 4096)
                #expect(image.pixels.count == 3 * image.width * image.height)
                codes["decoded", default: 0] += 1
            } catch {
                codes[error.code, default: 0] += 1
            }
        }
        print("PNG fuzz: \(codes.sorted { $0.key < $1.key })")
    }
}
