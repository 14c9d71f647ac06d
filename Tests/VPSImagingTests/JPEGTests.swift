import Foundation
import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSImaging

@Suite struct JPEGTests {
    /// A small valid colour JPEG and its source image.
    static func sample(width: Int = 64, height: Int = 48, seed: String) throws -> (RGBImage, [UInt8]) {
        var rng = SplitMix64(testName: seed)
        let image = TestImages.textured(width: width, height: height, rng: &rng, rectangles: 4)
        return (image, try JPEG.encode(image, quality: 90))
    }

    @Test func rgbRoundTripAtQuality90() throws {
        var rng = SplitMix64(testName: "JPEGTests.rgbRoundTripAtQuality90")
        let image = TestImages.textured(width: 256, height: 192, rng: &rng)
        for subsampling in JPEG.ChromaSubsampling.allCases {
            let bytes = try JPEG.encode(image, quality: 90, chromaSubsampling: subsampling)
            let decoded = try JPEG.decodeRGB(bytes)
            #expect(decoded.width == image.width && decoded.height == image.height)
            let psnr = TestImages.psnr(decoded.pixels, image.pixels)
            print("JPEG RGB q=90 \(subsampling): PSNR \(String(format: "%.2f", psnr)) dB, \(bytes.count) bytes")
            #expect(psnr >= (subsampling == .chroma420 ? 32 : 35))
        }
        // The default keeps full chroma resolution at quality 90.
        let bytes = try JPEG.encode(image)
        #expect(bytes == (try JPEG.encode(image, quality: 90, chromaSubsampling: .chroma444)))
        let psnr = TestImages.psnr(try JPEG.decodeRGB(bytes).pixels, image.pixels)
        print("JPEG RGB q=90 default: PSNR \(String(format: "%.2f", psnr)) dB, \(bytes.count) bytes")
        #expect(psnr >= 35)
        // Decoding the colour JPEG to gray gives the luma of the RGB decoding (up to rounding).
        let gray = try JPEG.decodeGray(bytes)
        let luma = try JPEG.decodeRGB(bytes).gray
        #expect(TestImages.psnr(gray.pixels, luma.pixels) >= 40)
    }

    @Test func grayRoundTripAtQuality90() throws {
        var rng = SplitMix64(testName: "JPEGTests.grayRoundTripAtQuality90")
        let image = TestImages.textured(width: 256, height: 192, rng: &rng).gray
        let bytes = try JPEG.encode(image, quality: 90)
        let decoded = try JPEG.decodeGray(bytes)
        #expect(decoded.width == image.width && decoded.height == image.height)
        let psnr = TestImages.psnr(decoded.pixels, image.pixels)
        print("JPEG gray q=90: PSNR \(String(format: "%.2f", psnr)) dB, \(bytes.count) bytes")
        #expect(psnr >= 35)
        // A gray JPEG decoded to RGB has three equal channels.
        let rgb = try JPEG.decodeRGB(bytes)
        #expect(rgb == RGBImage(decoded))
    }

    @Test func lowerQualityGivesSmallerFiles() throws {
        var rng = SplitMix64(testName: "JPEGTests.lowerQualityGivesSmallerFiles")
        let image = TestImages.textured(width: 128, height: 96, rng: &rng)
        let small = try JPEG.encode(image, quality: 50)
        let large = try JPEG.encode(image, quality: 95)
        #expect(small.count < large.count)
        #expect(try JPEG.encode(image.gray, quality: 50).count < JPEG.encode(image.gray, quality: 95).count)
    }

    @Test func sizeReadsTheHeaderOnly() throws {
        let (image, bytes) = try Self.sample(width: 77, height: 31, seed: "JPEGTests.sizeReadsTheHeaderOnly")
        #expect(try JPEG.size(of: bytes) == (width: 77, height: 31))
        #expect(try JPEG.size(of: JPEG.encode(image.gray)) == (width: 77, height: 31))
        // The headers alone suffice.
        let headers = Array(bytes[..<JPEGSegments.entropyStart(in: bytes)])
        #expect(try JPEG.size(of: headers) == (width: 77, height: 31))
        #expect(try JPEG.size(of: Array(Data(bytes))) == (width: 77, height: 31))
        #expect(try JPEG.decodeRGB(Data(bytes)) == JPEG.decodeRGB(bytes))
    }

    @Test func maxSideIsEnforcedBeforeDecoding() throws {
        let (_, bytes) = try Self.sample(seed: "JPEGTests.maxSideIsEnforcedBeforeDecoding")
        #expect(throws: ImagingError.imageTooLarge(width: 64, height: 48, limit: 63)) {
            try JPEG.decodeRGB(bytes, maxSide: 63)
        }
        #expect(try JPEG.decodeGray(bytes, maxSide: 64).width == 64)
        #expect(throws: ImagingError.self) { try JPEG.decodeGray(bytes, maxSide: 0) }
    }

    /// One corrupt input and the error code it must produce.
    struct CorruptCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var maxSide = 8192
        var expected: String

        var testDescription: String { "\(name) → \(expected)" }
    }

    static func corruptCases() throws -> [CorruptCase] {
        let (image, jpeg) = try sample(seed: "JPEGTests.corruptCases")
        let entropyStart = JPEGSegments.entropyStart(in: jpeg)
        let sof = try #require(JPEGSegments.offset(of: 0xC0, in: jpeg))
        let dqt = try #require(JPEGSegments.offset(of: 0xDB, in: jpeg))
        var rng = SplitMix64(testName: "JPEGTests.corruptCases.random")
        var random = (0..<1000).map { _ in UInt8(rng.nextInt(below: 256)) }
        random[0] = 0x17
        let garbage = (0..<300).map { UInt8(($0 * 37 + 11) % 0xF0) }
        var badComponents = jpeg
        badComponents[sof + 9] = 0
        return [
            CorruptCase(name: "empty", bytes: [], expected: "EMPTY_IMAGE_DATA"),
            CorruptCase(name: "one byte", bytes: [0xFF], expected: "NOT_A_JPEG"),
            CorruptCase(name: "random bytes", bytes: random, expected: "NOT_A_JPEG"),
            CorruptCase(name: "PNG file", bytes: try PNG.encode(image), expected: "NOT_A_JPEG"),
            CorruptCase(name: "SOI only", bytes: [0xFF, 0xD8], expected: "TRUNCATED_JPEG"),
            CorruptCase(name: "cut inside DQT", bytes: Array(jpeg[..<(dqt + 20)]), expected: "TRUNCATED_JPEG"),
            CorruptCase(name: "cut inside SOF", bytes: Array(jpeg[..<(sof + 6)]), expected: "TRUNCATED_JPEG"),
            CorruptCase(name: "headers only", bytes: Array(jpeg[..<entropyStart]), expected: "TRUNCATED_JPEG"),
            CorruptCase(name: "first half", bytes: Array(jpeg[..<(jpeg.count / 2)]), expected: "TRUNCATED_JPEG"),
            CorruptCase(name: "no EOI", bytes: Array(jpeg.dropLast(2)), expected: "TRUNCATED_JPEG"),
            CorruptCase(
                name: "SOF 0×0", bytes: JPEGSegments.withFrameSize(jpeg, width: 0, height: 0),
                expected: "INVALID_IMAGE_SIZE"),
            CorruptCase(
                name: "SOF 64×0", bytes: JPEGSegments.withFrameSize(jpeg, width: 64, height: 0),
                expected: "INVALID_IMAGE_SIZE"),
            CorruptCase(
                name: "SOF 65535×65535", bytes: JPEGSegments.withFrameSize(jpeg, width: 65535, height: 65535),
                expected: "IMAGE_TOO_LARGE"),
            CorruptCase(
                name: "SOF 9000×48 over default maxSide",
                bytes: JPEGSegments.withFrameSize(jpeg, width: 9000, height: 48),
                expected: "IMAGE_TOO_LARGE"),
            CorruptCase(
                name: "SOF 5000×5000 over maxSide 4096",
                bytes: JPEGSegments.withFrameSize(jpeg, width: 5000, height: 5000),
                maxSide: 4096, expected: "IMAGE_TOO_LARGE"),
            CorruptCase(name: "SOF with zero components", bytes: badComponents, expected: "CORRUPT_JPEG"),
            CorruptCase(name: "garbage after SOI", bytes: [0xFF, 0xD8] + garbage, expected: "CORRUPT_JPEG"),
            CorruptCase(name: "EOI right after SOI", bytes: [0xFF, 0xD8, 0xFF, 0xD9], expected: "CORRUPT_JPEG"),
        ]
    }

    @Test func corruptInputsThrowTheRightCode() throws {
        let cases = try Self.corruptCases()
        #expect(cases.count >= 12)
        for corrupt in cases {
            for decode in [0, 1] {
                do {
                    if decode == 0 {
                        _ = try JPEG.decodeRGB(corrupt.bytes, maxSide: corrupt.maxSide)
                    } else {
                        _ = try JPEG.decodeGray(corrupt.bytes, maxSide: corrupt.maxSide)
                    }
                    Issue.record("\(corrupt.name): decoded without error")
                } catch {
                    #expect(error.code == corrupt.expected, "\(corrupt.name): \(error)")
                }
            }
        }
    }

    @Test func flippedEntropyBytesNeverCrash() throws {
        let (_, jpeg) = try Self.sample(seed: "JPEGTests.flippedEntropyBytesNeverCrash")
        let entropyStart = JPEGSegments.entropyStart(in: jpeg)
        var decodedCount = 0
        var codes: [String: Int] = [:]
        for position in stride(from: entropyStart, to: jpeg.count - 2, by: max(1, (jpeg.count - entropyStart) / 64)) {
            var flipped = jpeg
            flipped[position] ^= 0x5A
            do {
                let image = try JPEG.decodeRGB(flipped)
                #expect(image.width == 64 && image.height == 48)
                decodedCount += 1
            } catch {
                codes[error.code, default: 0] += 1
                #expect(["CORRUPT_JPEG", "TRUNCATED_JPEG"].contains(error.code), "\(error)")
            }
        }
        print("flipped entropy bytes: \(decodedCount) decoded, errors \(codes.sorted { $0.key < $1.key })")
    }

    @Test func seededMutationFuzzing() throws {
        var rng = SplitMix64(testName: "JPEGTests.seededMutationFuzzing")
        let source = TestImages.textured(width: 40, height: 32, rng: &rng, rectangles: 3)
        let jpegs = [try JPEG.encode(source, quality: 85), try JPEG.encode(source.gray, quality: 70)]
        var codes: [String: Int] = [:]
        var decoded = 0
        // VPS_JPEG_FUZZ_ITERATIONS runs a longer campaign (for example under --sanitize=address).
        let iterations = ProcessInfo.processInfo.environment["VPS_JPEG_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 2000
        for iteration in 0..<iterations {
            var bytes = jpegs[iteration % 2]
            let headerLength = JPEGSegments.entropyStart(in: bytes)
            for _ in 0..<(1 + rng.nextInt(below: 3)) {
                switch rng.nextInt(below: 6) {
                case 0, 1:  // Flip bits of a header byte (where structure lives).
                    if !bytes.isEmpty {
                        bytes[rng.nextInt(below: min(headerLength, bytes.count))] ^= UInt8(1 + rng.nextInt(below: 255))
                    }
                case 2:  // Flip bits anywhere.
                    if !bytes.isEmpty {
                        bytes[rng.nextInt(below: bytes.count)] ^= UInt8(1 + rng.nextInt(below: 255))
                    }
                case 3:  // Truncate.
                    bytes.removeLast(rng.nextInt(below: bytes.count + 1))
                case 4:  // Insert random bytes.
                    let inserted = (0..<(1 + rng.nextInt(below: 8))).map { _ in UInt8(rng.nextInt(below: 256)) }
                    bytes.insert(contentsOf: inserted, at: rng.nextInt(below: bytes.count + 1))
                default:  // Overwrite a byte with a marker-like value.
                    if !bytes.isEmpty {
                        bytes[rng.nextInt(below: bytes.count)] = [0xFF, 0x00, 0xD9, 0xDA, 0xC0][rng.nextInt(below: 5)]
                    }
                }
            }
            do {
                let image = try JPEG.decodeRGB(bytes, maxSide: 4096)
                #expect(image.pixels.count == 3 * image.width * image.height)
                #expect(image.width <= 4096 && image.height <= 4096)
                decoded += 1
            } catch {
                codes[error.code, default: 0] += 1
            }
            _ = try? JPEG.size(of: bytes)
        }
        print("JPEG fuzz: \(decoded) of \(iterations) decoded; errors \(codes.sorted { $0.key < $1.key })")
        #expect(decoded + codes.values.reduce(0, +) == iterations)
    }

    @Test func encoderRejectsInvalidInput() {
        #expect(throws: ImagingError.invalidImageSize(width: 0, height: 5)) {
            try JPEG.encode(GrayImage(width: 0, height: 5))
        }
        #expect(throws: ImagingError.self) { try JPEG.encode(GrayImage(width: 4, height: 4), quality: 0) }
        #expect(throws: ImagingError.self) { try JPEG.encode(RGBImage(width: 4, height: 4), quality: 101) }
        #expect(throws: ImagingError.imageTooLarge(width: 70000, height: 1, limit: 65500)) {
            try JPEG.encode(GrayImage(width: 70000, height: 1))
        }
        // `pixels` is mutable; a count that no longer matches the size is refused, not read past.
        var broken = RGBImage(width: 4, height: 4)
        broken.pixels.removeLast(5)
        #expect(!broken.hasConsistentStorage)
        #expect(throws: ImagingError.self) { try JPEG.encode(broken) }
        #expect(throws: ImagingError.self) { try PNG.encode(broken) }
    }

    @Test func filesRoundTripAndMissingFilesReportIO() throws {
        let directory = TestImages.temporaryDirectory("jpeg")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (image, _) = try Self.sample(seed: "JPEGTests.filesRoundTripAndMissingFilesReportIO")
        let path = directory + "/image.jpg"
        try JPEG.write(image, toFile: path, quality: 95)
        let decoded = try JPEG.readRGB(fromFile: path)
        #expect(TestImages.psnr(decoded.pixels, image.pixels) > 35)
        #expect(try JPEG.readGray(fromFile: path).width == image.width)
        do {
            _ = try JPEG.readRGB(fromFile: directory + "/missing.jpg")
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error.code == "IO")
        }
    }

    @Test func decodingIsThreadSafe() async throws {
        let (_, jpeg) = try Self.sample(seed: "JPEGTests.decodingIsThreadSafe")
        let reference = try JPEG.decodeRGB(jpeg)
        let truncated = Array(jpeg.prefix(jpeg.count / 2))
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<16 {
                group.addTask {
                    if task % 2 == 0 { return (try? JPEG.decodeRGB(jpeg)) == reference }
                    do throws(ImagingError) {
                        _ = try JPEG.decodeRGB(truncated)
                        return false
                    } catch {
                        return error.code == "TRUNCATED_JPEG"
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test func errorCodesAndDescriptionsAreStable() {
        let errors: [(ImagingError, String)] = [
            (.emptyImageData, "EMPTY_IMAGE_DATA"), (.notAJPEG, "NOT_A_JPEG"), (.corruptJPEG("x"), "CORRUPT_JPEG"),
            (.truncatedJPEG("x"), "TRUNCATED_JPEG"), (.unsupportedJPEG("x"), "UNSUPPORTED_JPEG"),
            (.notAPNG, "NOT_A_PNG"), (.imageTooLarge(width: 1, height: 2, limit: 0), "IMAGE_TOO_LARGE"),
            (.invalidImageSize(width: 0, height: 0), "INVALID_IMAGE_SIZE"), (.invalidArgument("x"), "INVALID_ARGUMENT"),
            (.encodeFailed("x"), "ENCODE_FAILED"), (.pngFailed("x"), "PNG_FAILED"),
            (.io(path: "p", message: "m"), "IO"),
        ]
        for (error, code) in errors {
            #expect(error.code == code)
            #expect(error.description.hasPrefix(code + ": "))
        }
        #expect(
            ImagingError.imageTooLarge(width: 9000, height: 10, limit: 8192).description
                == "IMAGE_TOO_LARGE: image of 9000×10 pixels exceeds the limit of 8192 pixels per side")
    }
}
