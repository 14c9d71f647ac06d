import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSImaging

@Suite struct ResizeTests {
    @Test func constantImagesStayConstant() {
        let gray = GrayImage(width: 37, height: 23, value: 123)
        let rgb = RGBImage(width: 37, height: 23, fill: (10, 200, 77))
        for (width, height) in [(10, 7), (18, 11), (37, 23), (50, 40), (3, 29), (1, 1)] {
            let expectedGray = GrayImage(width: width, height: height, value: 123)
            #expect(gray.resizedByArea(width: width, height: height) == expectedGray)
            #expect(gray.resizedBilinear(width: width, height: height) == expectedGray)
            let expected = RGBImage(width: width, height: height, fill: (10, 200, 77))
            #expect(rgb.resizedByArea(width: width, height: height) == expected)
            #expect(rgb.resizedBilinear(width: width, height: height) == expected)
        }
    }

    @Test func halvingByAreaGivesExactBlockMeans() {
        var rng = SplitMix64(testName: "ResizeTests.halvingByAreaGivesExactBlockMeans")
        let gray = TestImages.randomGray(width: 40, height: 30, rng: &rng)
        let half = gray.resizedByArea(width: 20, height: 15)
        for y in 0..<15 {
            for x in 0..<20 {
                let sum =
                    Int(gray[2 * x, 2 * y]) + Int(gray[2 * x + 1, 2 * y]) + Int(gray[2 * x, 2 * y + 1])
                    + Int(gray[2 * x + 1, 2 * y + 1])
                #expect(Int(half[x, y]) == (sum + 2) / 4)
            }
        }
        let rgb = TestImages.randomRGB(width: 40, height: 30, rng: &rng)
        let rgbHalf = rgb.resizedByArea(width: 20, height: 15)
        for y in 0..<15 {
            for x in 0..<20 {
                for c in 0..<3 {
                    let sum = [(0, 0), (1, 0), (0, 1), (1, 1)].reduce(0) {
                        $0 + Int(rgb.pixels[3 * ((2 * y + $1.1) * 40 + 2 * x + $1.0) + c])
                    }
                    #expect(Int(rgbHalf.pixels[3 * (y * 20 + x) + c]) == (sum + 2) / 4)
                }
            }
        }
    }

    @Test func integerFactorsAreExactBoxFilters() {
        var rng = SplitMix64(testName: "ResizeTests.integerFactorsAreExactBoxFilters")
        let gray = TestImages.randomGray(width: 30, height: 24, rng: &rng)
        // 3 × 2 blocks: mean rounded half up is floor((2·sum + 6) / 12).
        let reduced = gray.resizedByArea(width: 10, height: 12)
        for y in 0..<12 {
            for x in 0..<10 {
                var sum = 0
                for dy in 0..<2 { for dx in 0..<3 { sum += Int(gray[3 * x + dx, 2 * y + dy]) } }
                #expect(Int(reduced[x, y]) == (2 * sum + 6) / 12)
            }
        }
    }

    @Test func nonIntegerAreaDownscalePreservesTheMean() {
        var rng = SplitMix64(testName: "ResizeTests.nonIntegerAreaDownscalePreservesTheMean")
        let gray = TestImages.randomGray(width: 101, height: 67, rng: &rng)
        let mean = { (image: GrayImage) in Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        }
        for (width, height) in [(40, 30), (33, 17), (100, 66), (7, 5)] {
            let small = gray.resizedByArea(width: width, height: height)
            #expect(abs(mean(small) - mean(gray)) < 0.75, "\(width)×\(height)")
        }
    }

    @Test func bilinearResizeKeepsRampsLinear() {
        // f(x, y) = 3x + 2y + 10 at pixel centres; bilinear sampling reproduces it exactly
        // between the outermost centres and clamps beyond them.
        let width = 64
        let height = 20
        var ramp = GrayImage(width: width, height: height)
        for y in 0..<height { for x in 0..<width { ramp[x, y] = UInt8(3 * x + 2 * y + 10) } }
        for (newWidth, newHeight) in [(101, 33), (40, 13), (64, 20), (150, 7)] {
            let resized = ramp.resizedBilinear(width: newWidth, height: newHeight)
            var worst = 0.0
            for y in 0..<newHeight {
                for x in 0..<newWidth {
                    let u = min(max((Double(x) + 0.5) * Double(width) / Double(newWidth) - 0.5, 0), Double(width - 1))
                    let v = min(
                        max((Double(y) + 0.5) * Double(height) / Double(newHeight) - 0.5, 0), Double(height - 1))
                    worst = max(worst, abs(Double(resized[x, y]) - (3 * u + 2 * v + 10)))
                }
            }
            #expect(worst <= 1, "\(newWidth)×\(newHeight): error \(worst)")
        }
    }

    @Test func bilinearSamplingFollowsThePixelCentreConvention() {
        var image = GrayImage(width: 4, height: 3)
        for y in 0..<3 { for x in 0..<4 { image[x, y] = UInt8(10 * x + 50 * y) } }
        #expect(image.bilinear(at: 0.5, y: 0.5) == 0)
        #expect(image.bilinear(at: 2.5, y: 1.5) == 70)
        #expect(image.bilinear(at: 2.0, y: 1.5) == 65)
        #expect(image.bilinear(at: 2.5, y: 1.0) == 45)
        #expect(abs(image.bilinear(at: 1.25, y: 2.25) - (7.5 + 87.5)) < 1e-12)
        // Clamped outside the outermost centres.
        #expect(image.bilinear(at: 0, y: 0) == 0)
        #expect(image.bilinear(at: -100, y: 1.5) == 50)
        #expect(image.bilinear(at: 4, y: 3) == 130)
        #expect(image.bilinear(at: .infinity, y: -.infinity) == 30)
    }
}

@Suite struct GeometryTests {
    @Test func quarterTurnsComposeToIdentity() {
        var rng = SplitMix64(testName: "GeometryTests.quarterTurnsComposeToIdentity")
        let rgb = TestImages.randomRGB(width: 7, height: 5, rng: &rng)
        let gray = TestImages.randomGray(width: 6, height: 9, rng: &rng)
        let turned = rgb.rotated90(clockwise: true)
        #expect(turned.width == 5 && turned.height == 7)
        #expect(turned.rotated90(clockwise: true).rotated90(clockwise: true).rotated90(clockwise: true) == rgb)
        #expect(turned.rotated90(clockwise: false) == rgb)
        #expect(rgb.rotated90(clockwise: false).rotated90(clockwise: true) == rgb)
        #expect(rgb.rotated180() == turned.rotated90(clockwise: true))
        #expect(rgb.rotated180().rotated180() == rgb)
        #expect(gray.rotated90(clockwise: true).rotated90(clockwise: false) == gray)
        #expect(gray.rotated180() == gray.rotated90(clockwise: false).rotated90(clockwise: false))
    }

    @Test func clockwiseTurnMovesTopLeftToTopRight() {
        var image = GrayImage(width: 3, height: 2)
        image[0, 0] = 1  // top-left
        image[2, 0] = 2  // top-right
        image[0, 1] = 3  // bottom-left
        let turned = image.rotated90(clockwise: true)
        #expect(turned.width == 2 && turned.height == 3)
        #expect(turned[1, 0] == 1)  // top-left → top-right
        #expect(turned[1, 2] == 2)  // top-right → bottom-right
        #expect(turned[0, 0] == 3)  // bottom-left → top-left
        let back = image.rotated90(clockwise: false)
        #expect(back[0, 2] == 1 && back[0, 0] == 2 && back[1, 2] == 3)
    }

    @Test func croppingCopiesTheRectangle() {
        var rng = SplitMix64(testName: "GeometryTests.croppingCopiesTheRectangle")
        let rgb = TestImages.randomRGB(width: 12, height: 9, rng: &rng)
        let part = rgb.cropped(x: 3, y: 2, width: 5, height: 4)
        #expect(part.width == 5 && part.height == 4)
        for y in 0..<4 { for x in 0..<5 { #expect(part[x, y] == rgb[x + 3, y + 2]) } }
        #expect(rgb.cropped(x: 0, y: 0, width: 12, height: 9) == rgb)
        #expect(rgb.cropped(x: 12, y: 9, width: 0, height: 0).isEmpty)
        let gray = rgb.gray
        #expect(gray.cropped(x: 3, y: 2, width: 5, height: 4) == part.gray)
    }
}
