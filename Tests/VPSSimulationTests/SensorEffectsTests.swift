import Testing
import VPSGeometry
import VPSImaging
import VPSSimulation

@Suite struct SensorEffectsTests {
    static let clean = Renderer(venue: Fixtures.room).render(
        camera: Fixtures.smallCamera, camFromWorld: Fixtures.camFromWorld(at: Vec3(0.3, 1.5, 0.2), yaw: 2))

    static func mean(_ image: RGBImage) -> Double {
        Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
    }

    static func gradientEnergy(_ image: RGBImage) -> Double {
        let g = image.gray
        var sum = 0.0
        for y in 0..<g.height {
            for x in 1..<g.width {
                let d = Double(g[x, y]) - Double(g[x - 1, y])
                sum += d * d
            }
        }
        return sum
    }

    @Test func noiseHasTheConfiguredSpreadAndIsSeeded() {
        var a = SensorEffectsTests.clean, b = SensorEffectsTests.clean, c = SensorEffectsTests.clean
        var r1 = SplitMix64(seed: 1), r2 = SplitMix64(seed: 1), r3 = SplitMix64(seed: 2)
        let effects = SensorEffects(noiseSigma: 4)
        effects.apply(to: &a, using: &r1)
        effects.apply(to: &b, using: &r2)
        effects.apply(to: &c, using: &r3)
        #expect(a == b)
        #expect(a != c)
        var sum = 0.0, sum2 = 0.0, n = 0.0
        for i in 0..<a.pixels.count where (20...235).contains(SensorEffectsTests.clean.pixels[i]) {
            let d = Double(a.pixels[i]) - Double(SensorEffectsTests.clean.pixels[i])
            sum += d
            sum2 += d * d
            n += 1
        }
        let sd = (sum2 / n - (sum / n) * (sum / n)).squareRoot()
        #expect(abs(sum / n) < 0.2)
        #expect(abs(sd - 4) < 0.3, "noise sd \(sd)")
    }

    @Test func blurLowersGradientEnergy() {
        var rng = SplitMix64(seed: 1)
        var gaussian = SensorEffectsTests.clean, box = SensorEffectsTests.clean
        SensorEffects(blurSigma: 1.5).apply(to: &gaussian, using: &rng)
        SensorEffects(boxBlurRadius: 1).apply(to: &box, using: &rng)
        let e0 = SensorEffectsTests.gradientEnergy(SensorEffectsTests.clean)
        #expect(SensorEffectsTests.gradientEnergy(gaussian) < 0.5 * e0)
        #expect(SensorEffectsTests.gradientEnergy(box) < 0.8 * e0)
        // Blurring keeps the mean.
        #expect(abs(SensorEffectsTests.mean(gaussian) - SensorEffectsTests.mean(SensorEffectsTests.clean)) < 1)
    }

    @Test func exposureScalesIntensities() {
        var rng = SplitMix64(seed: 1)
        var darker = SensorEffectsTests.clean, brighter = SensorEffectsTests.clean
        SensorEffects(gain: 0.5).apply(to: &darker, using: &rng)
        SensorEffects(gamma: 1.5).apply(to: &brighter, using: &rng)
        let m = SensorEffectsTests.mean(SensorEffectsTests.clean)
        #expect(abs(SensorEffectsTests.mean(darker) - m / 2) < 1)
        #expect(SensorEffectsTests.mean(brighter) > m)
        var same = SensorEffectsTests.clean
        SensorEffects.none.apply(to: &same, using: &rng)
        #expect(same == SensorEffectsTests.clean)
    }
}
