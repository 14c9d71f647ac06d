import Testing
import VPSGeometry
import VPSImaging
import VPSTestSupport

/// The summed-area table gives exact area means of the piecewise-constant image.
@Suite struct IntegralImageTests {
    static func image(seed: String, width: Int = 37, height: Int = 23) -> GrayImage {
        var rng = SplitMix64(testName: seed)
        return GrayImage(
            width: width, height: height, pixels: (0..<(width * height)).map { _ in UInt8(rng.nextInt(below: 256)) })
    }

    @Test func wholePixelBoxesAreExactMeans() {
        let image = Self.image(seed: "IntegralImage.whole")
        let table = IntegralImage(image)
        for (x0, y0, x1, y1) in [(0, 0, 37, 23), (3, 4, 9, 11), (36, 22, 37, 23), (5, 0, 6, 23)] {
            var sum = 0
            for y in y0..<y1 { for x in x0..<x1 { sum += Int(image[x, y]) } }
            let mean = Double(sum) / Double((x1 - x0) * (y1 - y0))
            #expect(abs(table.boxMean(Double(x0), Double(y0), Double(x1), Double(y1)) - mean) < 1e-9)
        }
    }

    /// A box with fractional corners weights each pixel by the area it covers.
    @Test func fractionalBoxesWeightPixelsByCoveredArea() {
        let image = Self.image(seed: "IntegralImage.fraction")
        let table = IntegralImage(image)
        var rng = SplitMix64(testName: "IntegralImage.boxes")
        for _ in 0..<50 {
            let x0 = rng.uniform(0...30), y0 = rng.uniform(0...16)
            let x1 = x0 + rng.uniform(0.2...6), y1 = y0 + rng.uniform(0.2...6)
            var sum = 0.0
            for y in Int(y0)...min(22, Int(y1)) {
                for x in Int(x0)...min(36, Int(x1)) {
                    let w = max(0, min(x1, Double(x + 1)) - max(x0, Double(x)))
                    let h = max(0, min(y1, Double(y + 1)) - max(y0, Double(y)))
                    sum += w * h * Double(image[x, y])
                }
            }
            let expected = sum / ((x1 - x0) * (y1 - y0))
            #expect(abs(table.boxMean(x0, y0, x1, y1) - expected) < 1e-6)
        }
    }

    /// The borrowed sampler's centred squares agree with `boxMean`, and refuse squares leaving the image.
    @Test func samplerMatchesBoxMean() {
        let table = IntegralImage(Self.image(seed: "IntegralImage.sampler"))
        var rng = SplitMix64(testName: "IntegralImage.centres")
        table.withBoxSampler { sampler in
            for _ in 0..<40 {
                let x = rng.uniform(4...33), y = rng.uniform(4...19), half = rng.uniform(0.3...3.5)
                let mean = sampler.mean(x, y, half: half)
                #expect(
                    mean.map { abs(Double($0) - table.boxMean(x - half, y - half, x + half, y + half)) < 1e-3 } == true)
            }
            #expect(sampler.mean(1, 10, half: 1.5) == nil)
            #expect(sampler.mean(36, 10, half: 1.5) == nil)
        }
    }

    @Test func emptyImageHasNoArea() {
        let table = IntegralImage(GrayImage(width: 0, height: 0, pixels: []))
        #expect(table.boxMean(0, 0, 1, 1) == 0)
    }
}
